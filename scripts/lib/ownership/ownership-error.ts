import { ToolkitError } from '../errors/toolkit-error.ts';

export type OwnershipErrorCode = 'bad-record';

/** The ownership ConfigMap holds a key that is not its record: a failure (exit 1), never the user's to fix by hand. */
export class OwnershipError extends ToolkitError<OwnershipErrorCode> {
  constructor(
    code: OwnershipErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: 1 });
  }
}
