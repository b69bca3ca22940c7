import { ToolkitError } from '../errors/toolkit-error.ts';
import type { ToolkitErrorOptions } from '../errors/toolkit-error.ts';

/** Why a signed artifact was not accepted; the codes double as host refusal reasons. */
export type VerificationErrorCode = 'signature' | 'too-large' | 'malformed' | 'trust-config' | 'signing-failed';

export class VerificationError extends ToolkitError<VerificationErrorCode> {
  constructor(code: VerificationErrorCode, message: string, options: ToolkitErrorOptions = {}) {
    super(code, message, { exitCode: code === 'trust-config' ? 2 : 1, ...options });
  }
}
