import { ToolkitError } from '../errors/toolkit-error.ts';

export type DeliveryErrorCode =
  | 'bad-job-template'
  | 'lease-held'
  | 'delivery-in-progress'
  | 'conflict'
  | 'push-failed'
  | 'plan-failed'
  | 'build-failed'
  | 'sync-failed'
  | 'sync-timeout';

const USER_FIXABLE: ReadonlySet<DeliveryErrorCode> = new Set(['bad-job-template', 'plan-failed']);
const REFUSALS: ReadonlySet<DeliveryErrorCode> = new Set(['lease-held', 'delivery-in-progress']);

/** Exit status 2 for what the user must fix (job template, the commit's catalogue), 3 when another holds the target, 1 for failures. */
export class DeliveryError extends ToolkitError<DeliveryErrorCode> {
  constructor(
    code: DeliveryErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : REFUSALS.has(code) ? 3 : 1 });
  }
}
