import { ToolkitError } from '../errors/toolkit-error.ts';

export type RunnerErrorCode =
  | 'no-runner'
  | 'host-key'
  | 'connection'
  | 'bad-bundle'
  | 'remote-failed'
  | 'bad-receipt'
  | 'busy';

const USER_FIXABLE: ReadonlySet<RunnerErrorCode> = new Set(['no-runner', 'host-key', 'bad-bundle']);

/** Exit status 2 for what the user must fix (no runner configured, a host key that does not match), else 1. */
export class RunnerError extends ToolkitError<RunnerErrorCode> {
  constructor(
    code: RunnerErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown; exitCode?: number } = {},
  ) {
    super(code, message, { ...options, exitCode: options.exitCode ?? (USER_FIXABLE.has(code) ? 2 : 1) });
  }
}
