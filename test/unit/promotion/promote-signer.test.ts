import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/lib/errors/toolkit-error.ts';
import { chooseSigner } from '../../../scripts/lib/promotion/promote-signer.ts';

const choice = (key: string) => ({ key, keyless: false, fulcioURL: undefined, rekorURL: undefined });

describe('chooseSigner(): a key that cannot be read is a usage error (exit 2), never an internal error', () => {
  it('a missing key file names the path and the reason', async () => {
    const error = await chooseSigner(choice('/nonexistent/promote.key')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe('Cannot sign: cannot read the key "/nonexistent/promote.key" (ENOENT)');
  });

  it('a folder given as the key says so', async () => {
    const error = await chooseSigner(choice('/tmp')).catch((e: unknown) => e);
    expect((error as UsageError).message).toBe('Cannot sign: cannot read the key "/tmp" (EISDIR)');
  });
});
