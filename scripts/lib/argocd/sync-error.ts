import { ToolkitError } from '../errors/toolkit-error.ts';

export type SyncErrorCode = 'sync-failed' | 'sync-timeout';

/** Argo CD did not bring the Applications to Synced and Healthy at the commit: a failure (exit 1). */
export class SyncError extends ToolkitError<SyncErrorCode> {
  constructor(
    code: SyncErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: 1 });
  }
}
