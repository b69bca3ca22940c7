import { ToolkitError } from '../errors/toolkit-error.ts';

export type DeployErrorCode = 'layer-failed' | 'aai-failed' | 'bad-token' | 'bad-profile' | 'no-deploy-settings';

const USER_FIXABLE: ReadonlySet<DeployErrorCode> = new Set(['bad-token', 'bad-profile', 'no-deploy-settings']);

/** Exit status 2 for what the user must fix (a token file, the profile's deploy section), 1 for failures. */
export class DeployError extends ToolkitError<DeployErrorCode> {
  constructor(
    code: DeployErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: USER_FIXABLE.has(code) ? 2 : 1 });
  }
}
