import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/lib/errors/toolkit-error.ts';
import { chooseSigner } from '../../../scripts/lib/promotion/promote-signer.ts';

const choice = (key: string) => ({ key, keyless: false, fulcioURL: undefined, rekorURL: undefined });

describe('chooseSigner(): a key that cannot be read is a usage error (exit 2), never an internal error', () => {
  it('a missing key file names the path and the reason', async () => {
    const error = await chooseSigner(choice('/nonexistent/promote.key')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(
      'Cannot sign: cannot read the key "/nonexistent/promote.key" (it does not exist)',
    );
  });

  it('a folder given as the key says so', async () => {
    const error = await chooseSigner(choice('/tmp')).catch((e: unknown) => e);
    expect((error as UsageError).message).toBe(
      'Cannot sign: cannot read the key "/tmp" (it is a directory, not a regular file)',
    );
  });

  it('a FIFO is refused at once instead of waiting for a writer, and a symlink is not followed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'promote-signer-'));
    execFileSync('mkfifo', [join(dir, 'fifo.key')]);
    const started = Date.now();
    const fifo = await chooseSigner(choice(join(dir, 'fifo.key'))).catch((e: unknown) => e);
    expect((fifo as UsageError).message).toMatch(/fifo\.key" \(it is a FIFO, not a regular file\)$/);
    expect(Date.now() - started).toBeLessThan(2000);
    writeFileSync(join(dir, 'real.key'), 'not a key');
    symlinkSync(join(dir, 'real.key'), join(dir, 'link.key'));
    const link = await chooseSigner(choice(join(dir, 'link.key'))).catch((e: unknown) => e);
    expect((link as UsageError).message).toMatch(/link\.key" \(it is a symbolic link; it must be a regular file\)$/);
  });
});
