import { ToolkitError } from '../errors/toolkit-error.ts';

export type DevboxErrorCode =
  | 'unknown-target'
  | 'bad-profile'
  | 'bad-record'
  | 'bad-receipt'
  | 'bad-job-template'
  | 'lease-held'
  | 'delivery-in-progress'
  | 'conflict'
  | 'push-failed'
  | 'plan-failed'
  | 'build-failed'
  | 'sync-failed'
  | 'sync-timeout'
  | 'layer-failed'
  | 'aai-failed'
  | 'bad-token'
  | 'no-deploy-settings';

const USER_FIXABLE: ReadonlySet<DevboxErrorCode> = new Set([
  'unknown-target',
  'bad-profile',
  'bad-job-template',
  'bad-receipt',
  'plan-failed',
  'bad-token',
  'no-deploy-settings',
]);

const REFUSALS: ReadonlySet<DevboxErrorCode> = new Set(['lease-held', 'delivery-in-progress']);

/** Exit status 2 for what the user must fix (profile, template, local receipt), 3 when the target is held by another, 1 for failures. */
export class DevboxError extends ToolkitError<DevboxErrorCode> {
  constructor(
    code: DevboxErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : REFUSALS.has(code) ? 3 : 1 });
  }
}
