import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { writeCacheFile } from '../../../scripts/lib/fingerprint/write-cache-file.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pharos-cache-write-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('writeCacheFile()', () => {
  it('replaces a cache file whole and leaves no temp file behind', async () => {
    const file = join(dir, 'blobs.bin');
    writeFileSync(file, 'old');
    await writeCacheFile(file, Buffer.from('new'));
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['blobs.bin']);
  });

  it('leaves what was there, and no temp file, when the rename fails', async () => {
    // A folder where the cache file should be: the rename fails for root too.
    const taken = join(dir, 'results.json');
    mkdirSync(taken);
    writeFileSync(join(taken, 'kept'), 'last good');
    await expect(writeCacheFile(taken, Buffer.from('new'))).rejects.toThrow();
    expect(readFileSync(join(taken, 'kept'), 'utf8')).toBe('last good');
    expect(readdirSync(dir)).toEqual(['results.json']);
  });
});
