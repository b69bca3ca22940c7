// Kubernetes `Status` failure bodies, shaped as the real API server sends them.
export interface ApiFailure {
  readonly code: number;
  readonly body: Record<string, unknown>;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export function failure(
  code: number,
  message: string,
  reason = REASONS[code] ?? 'Unknown',
  details?: Record<string, unknown>,
): ApiFailure {
  return {
    code,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details ? { details } : {}),
      code,
    },
  };
}

export function notFound(plural: string, group: string, name: string): ApiFailure {
  const what = group === '' ? plural : `${plural}.${group}`;
  return failure(404, `${what} "${name}" not found`, 'NotFound', { name, group, kind: plural });
}

export function alreadyExists(plural: string, group: string, name: string): ApiFailure {
  const what = group === '' ? plural : `${plural}.${group}`;
  return failure(409, `${what} "${name}" already exists`, 'AlreadyExists', { name, group, kind: plural });
}

export function conflict(plural: string, group: string, name: string): ApiFailure {
  const what = group === '' ? plural : `${plural}.${group}`;
  return failure(
    409,
    `Operation cannot be fulfilled on ${what} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    'Conflict',
    { name, group, kind: plural },
  );
}

export function uidConflict(plural: string, group: string, name: string, expected: string, actual: string): ApiFailure {
  const what = group === '' ? plural : `${plural}.${group}`;
  return failure(
    409,
    `Operation cannot be fulfilled on ${what} "${name}": Precondition failed: UID in precondition: ${expected}, UID in object meta: ${actual}`,
    'Conflict',
    { name, group, kind: plural },
  );
}

export function success(plural: string, group: string, name: string, uid: string): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, group, kind: plural, uid },
  };
}

export class ApiFailureError extends Error {
  readonly failure: ApiFailure;
  constructor(f: ApiFailure) {
    super(String(f.body['message']));
    this.failure = f;
  }
}
