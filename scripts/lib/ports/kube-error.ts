import { ToolkitError } from '../errors/toolkit-error.ts';

export type KubeErrorCode =
  | 'config'
  | 'not-found'
  | 'conflict'
  | 'already-exists'
  | 'invalid'
  | 'unavailable'
  | 'request-failed';

/** A Kubernetes API call that failed; `retryable` when the API server was unreachable or overloaded; `config` (no usable kubeconfig) exits 2. */
export class KubeError extends ToolkitError<KubeErrorCode> {
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(
    code: KubeErrorCode,
    message: string,
    options: { status?: number; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { details: options.details, cause: options.cause, exitCode: code === 'config' ? 2 : 1 });
    this.status = options.status;
    this.retryable = code === 'unavailable';
  }
}

/**
 * The object changed since the caller read it (409 on a stale resourceVersion, or a JSON patch `test` that no
 * longer holds): read it again and re-decide, never overwrite.
 */
export class ConflictError extends KubeError {
  constructor(message: string, options: { status?: number; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super('conflict', message, options);
  }
}

export function isConflict(error: unknown): error is ConflictError {
  return error instanceof ConflictError;
}
