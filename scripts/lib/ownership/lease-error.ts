import { ToolkitError } from '../errors/toolkit-error.ts';

export type LeaseErrorCode =
  | 'lease-held'
  | 'delivery-in-progress'
  | 'lease-lost'
  | 'no-lease'
  | 'no-receipt'
  | 'not-a-candidate'
  | 'bad-workload'
  | 'runtime-failed'
  | 'unsafe-build'
  | 'settle-timeout'
  | 'project-writer';

const REFUSALS: ReadonlySet<LeaseErrorCode> = new Set(['lease-held', 'delivery-in-progress']);
const USER_FIXABLE: ReadonlySet<LeaseErrorCode> = new Set([
  'no-receipt',
  'not-a-candidate',
  'bad-workload',
  'project-writer',
  'unsafe-build',
]);

/** Exit status 3 when another holder has the target, 2 for what the user must fix, 1 for failures. */
export class LeaseError extends ToolkitError<LeaseErrorCode> {
  constructor(
    code: LeaseErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: REFUSALS.has(code) ? 3 : USER_FIXABLE.has(code) ? 2 : 1 });
  }
}
