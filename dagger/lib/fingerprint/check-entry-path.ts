import { FingerprintError } from './fingerprint-error.ts';

/** A path with a tab or newline cannot be a `file` line of the encoding: refuse it rather than escape it. */
export function checkEntryPath(path: string): void {
  if (/[\t\n\r]/.test(path)) {
    throw new FingerprintError(
      'unsafe-path',
      `Cannot fingerprint ${JSON.stringify(path)}: a path with a tab or newline has no fingerprint/v1 encoding`,
      {
        details: { path },
      },
    );
  }
}
