import { ToolkitError } from '../errors/toolkit-error.ts';

export type TargetErrorCode = 'unknown-target' | 'bad-profile' | 'bad-receipt' | 'delivery-in-progress';

const USER_FIXABLE: ReadonlySet<TargetErrorCode> = new Set(['unknown-target', 'bad-profile', 'bad-receipt']);

/** Exit status 2 for what the user must fix (profile, local receipt), 3 when another process of this checkout holds the target. */
export class TargetError extends ToolkitError<TargetErrorCode> {
  constructor(
    code: TargetErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : 3 });
  }
}
