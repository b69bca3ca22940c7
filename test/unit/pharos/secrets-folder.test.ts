import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecretKey } from '../../../scripts/lib/pharos/secrets-folder.ts';

let dir = '';
let folder = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pharos-secrets-'));
  folder = join(dir, 'pharos');
  // The kubelet's layout: a timestamped folder, ..data linking to it, and one link per key through ..data.
  await mkdir(join(folder, '..2026_11_30_10_00_00.1'), { recursive: true });
  await writeFile(join(folder, '..2026_11_30_10_00_00.1', 'API_PASSWORD'), 's3cret', { mode: 0o600 });
  await symlink('..2026_11_30_10_00_00.1', join(folder, '..data'));
  await symlink('..data/API_PASSWORD', join(folder, 'API_PASSWORD'));
  await writeFile(join(dir, 'outside'), 'elsewhere');
  await symlink(join(dir, 'outside'), join(folder, 'OUTSIDE'));
  execFileSync('mkfifo', [join(folder, 'FIFO')]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readSecretKey(): a projected Secret key, read as a regular file inside its folder', () => {
  it("follows the kubelet's ..data links inside the folder", async () => {
    expect(await readSecretKey(folder, 'API_PASSWORD')).toBe('s3cret');
  });

  it('refuses a link out of the folder, naming the key and the file but never a value', async () => {
    await expect(readSecretKey(folder, 'OUTSIDE')).rejects.toThrow(
      `Cannot read secret "OUTSIDE" from "${join(folder, 'OUTSIDE')}": it links outside "${folder}"`,
    );
  });

  it('refuses a FIFO at once instead of blocking the hook', async () => {
    const started = Date.now();
    await expect(readSecretKey(folder, 'FIFO')).rejects.toThrow(/"FIFO" .*: it is a FIFO, not a regular file$/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('says a missing key is missing', async () => {
    await expect(readSecretKey(folder, 'GHOST')).rejects.toThrow(/"GHOST" .*: missing \(is the key projected/);
  });
});
