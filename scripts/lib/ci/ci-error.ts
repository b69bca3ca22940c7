import { ToolkitError } from '../errors/toolkit-error.ts';

/** CI helper failures: `built` a bad build-changed output, `oidc` no token from the runner, `lock-files` missing lock files, `lock-exists` a release whose lock deploy-state already holds. */
export type CiErrorCode = 'built' | 'oidc' | 'lock-files' | 'lock-exists' | 'conflict' | 'promotion-output';

export class CiError extends ToolkitError<CiErrorCode> {}
