import { ToolkitError } from '../errors/toolkit-error.ts';

export type FingerprintErrorCode =
  | 'not-a-git-repo'
  | 'unknown-revision'
  | 'unknown-image'
  | 'missing-dockerfile'
  | 'missing-catalogue'
  | 'submodule'
  | 'unsafe-path'
  | 'git-failed'
  | 'read-failed';

const USER_FIXABLE: ReadonlySet<FingerprintErrorCode> = new Set([
  'not-a-git-repo',
  'unknown-revision',
  'unknown-image',
  'missing-dockerfile',
  'missing-catalogue',
  'submodule',
  'unsafe-path',
]);

/** Exit status 2 for what the user must fix (bad repo, rev, catalogue), 1 for failures that may pass on retry. */
export class FingerprintError extends ToolkitError<FingerprintErrorCode> {
  constructor(
    code: FingerprintErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : 1 });
  }
}
