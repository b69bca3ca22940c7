import { RegularFileError } from '../ports/regular-file.ts';
import { loadSigningKey, signWithKey } from '../signing/sign-with-key.ts';
import { UsageError } from '../errors/toolkit-error.ts';
import { readKeyFile } from './read-key-file.ts';

export interface SignerChoice {
  readonly key: string | undefined;
  readonly keyless: boolean;
  readonly fulcioURL: string | undefined;
  readonly rekorURL: string | undefined;
}

/** `--key <PKCS#8 PEM>` signs locally; `--keyless` signs through Fulcio and Rekor with the CI's OIDC token. */
export async function chooseSigner(choice: SignerChoice): Promise<(bytes: Buffer) => Promise<string>> {
  if ((choice.key === undefined) === !choice.keyless)
    throw new UsageError('Cannot sign: pass exactly one of --key <PEM> and --keyless');
  if (choice.key !== undefined) {
    const path = choice.key;
    const pem = await readKeyFile(path).catch((cause: unknown) => {
      // a key file that is not there (or not a regular file) is the caller's to fix, not a crash
      if (cause instanceof RegularFileError)
        throw new UsageError(`Cannot sign: cannot read the key "${path}" (${cause.reason})`, {
          cause,
        });
      throw cause;
    });
    const key = loadSigningKey(pem, path);
    return async (bytes) => signWithKey(bytes, key);
  }
  // sigstore's signing stack (HTTP client, TUF) takes a quarter second to load: only keyless signing pays for it.
  const { signKeyless } = await import('../signing/sign-keyless.ts');
  return (bytes) => signKeyless(bytes, { fulcioURL: choice.fulcioURL, rekorURL: choice.rekorURL });
}
