// An API server answer or socket failure as the port's typed error: the HTTP status and the Status body's reason decide its code.
import { ConflictError, KubeError } from './kube-error.ts';

/** A non-2xx answer: the status and the body as sent (a `Status` object, as JSON, from a real API server). */
export class ApiResponseError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

function statusBody(body: string): { message?: string; reason?: string } {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null) return parsed as { message?: string; reason?: string };
  } catch {
    // not JSON: a proxy's page or plain text
  }
  return body.trim() === '' ? {} : { message: body.trim() };
}

// `guarded`: a JSON patch with `test` operations, whose 422 means the object is not what the caller read.
export function translate(error: unknown, what: string, guarded: boolean): KubeError {
  if (error instanceof KubeError) return error;
  if (error instanceof ApiResponseError) {
    const status = error.status;
    const body = statusBody(error.body);
    // A 401's Status says only "Unauthorized": say what it means.
    const message =
      status === 401
        ? `Cannot ${what}: the API server does not accept this kubeconfig's credentials (401 Unauthorized)`
        : `Cannot ${what}: ${body.message ?? `HTTP ${status}`}`;
    const details = { status, reason: body.reason };
    if (status === 409 && body.reason === 'AlreadyExists')
      return new KubeError('already-exists', message, { status, details, cause: error });
    if (status === 409 || (status === 422 && guarded))
      return new ConflictError(message, { status, details, cause: error });
    if (status === 404) return new KubeError('not-found', message, { status, details, cause: error });
    if (status === 400 || status === 422 || status === 415)
      return new KubeError('invalid', message, { status, details, cause: error });
    if (status === 429 || status >= 500)
      return new KubeError('unavailable', message, { status, details, cause: error });
    return new KubeError('request-failed', message, { status, details, cause: error });
  }
  const code = errnoOf(error);
  const text = code ?? (error instanceof Error ? error.message : String(error));
  return new KubeError('unavailable', `Cannot ${what}: API server unreachable (${text})`, {
    details: { errno: code },
    cause: error,
  });
}

// node:http puts the socket's errno (`ECONNREFUSED`, `ECONNRESET`) on the error; wrappers keep it in `cause`.
function errnoOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}
