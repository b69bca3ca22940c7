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
  | 'sync-timeout';

const USER_FIXABLE: ReadonlySet<DevboxErrorCode> = new Set(['unknown-target', 'bad-profile', 'bad-job-template', 'plan-failed']);

/** Exit status 2 for what the user must fix (profile, template), 1 for refusals and failures a retry may pass. */
export class DevboxError extends ToolkitError<DevboxErrorCode> {
  constructor(code: DevboxErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : 1 });
  }
}
