import { ToolkitError } from '../errors/toolkit-error.ts';

/** Lock failures: `malformed` bytes, a lock that does not `match` its tag, an image `binding` broken, `missing` inputs. */
export type LockErrorCode = 'malformed' | 'match' | 'binding' | 'missing' | 'fetch-failed';

export class LockError extends ToolkitError<LockErrorCode> {}
