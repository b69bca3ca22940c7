import { sign } from 'sigstore';
import { VerificationError } from './signing-error.ts';

export interface KeylessOptions {
  readonly fulcioURL?: string;
  readonly rekorURL?: string;
  /** Explicit OIDC token; else sigstore-js asks GitHub Actions (ACTIONS_ID_TOKEN_REQUEST_*) or reads SIGSTORE_ID_TOKEN. */
  readonly identityToken?: string;
}

/** Keyless signing through Fulcio (certificate for the workflow identity) and Rekor (log entry). */
export async function signKeyless(artifact: Uint8Array, options: KeylessOptions = {}): Promise<string> {
  try {
    const bundle = await sign(Buffer.from(artifact), {
      ...(options.fulcioURL === undefined ? {} : { fulcioURL: options.fulcioURL }),
      ...(options.rekorURL === undefined ? {} : { rekorURL: options.rekorURL }),
      ...(options.identityToken === undefined ? {} : { identityToken: options.identityToken }),
    });
    return `${JSON.stringify(bundle)}\n`;
  } catch (cause) {
    throw new VerificationError(
      'signing-failed',
      `Cannot sign keyless: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
