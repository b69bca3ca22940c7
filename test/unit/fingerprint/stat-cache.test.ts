import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFileSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import * as hashing from '../../../scripts/lib/fingerprint/hash-file-sync.ts';
import { fingerprintImages, loadCatalogue, openSource } from '../../../scripts/lib/fingerprint/index.ts';
import { openStatCache } from '../../../scripts/lib/fingerprint/stat-cache.ts';
import { naiveFingerprint } from '../../support/naive-fingerprint.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

vi.mock('../../../scripts/lib/fingerprint/hash-file-sync.ts', async (original) => {
  const real = await original<typeof import('../../../scripts/lib/fingerprint/hash-file-sync.ts')>();
  return { hashFileInto: vi.fn(real.hashFileInto) };
});
const reads = vi.mocked(hashing.hashFileInto);

const catalogue = {
  platform: 'linux/amd64',
  images: {
    app: { image: 'pharos/app', application: 'pharos', context: '.', dockerfile: 'app/Dockerfile', inputs: ['app'] },
  },
};

let dir: TempRepo;
beforeEach(() => {
  // Outside git every file goes through the stat cache.
  dir = tempRepo(
    {
      'gitops/manifests/images.yaml': JSON.stringify(catalogue),
      'app/Dockerfile': 'FROM scratch\n',
      'app/data.txt': 'aaaa',
    },
    { git: false },
  );
  // Age the files so they are not racily clean when first hashed.
  const past = new Date(Date.now() - 60_000);
  for (const f of ['app/Dockerfile', 'app/data.txt']) utimesSync(join(dir.dir, f), past, past);
  reads.mockClear();
});
afterEach(() => dir.remove());

async function fingerprint(): Promise<string> {
  const source = await openSource(dir.dir, undefined);
  const [result] = await fingerprintImages(source, await loadCatalogue(source));
  return result?.fingerprint ?? '';
}

const truth = () => naiveFingerprint(dir.dir, catalogue, 'app');

describe('the working-tree stat cache', () => {
  it('fingerprints an unchanged tree without reading file contents', async () => {
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(2);
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).not.toHaveBeenCalled();
  });

  it('re-reads a file rewritten with the same size and the same mtime', async () => {
    await fingerprint();
    const file = join(dir.dir, 'app/data.txt');
    const before = statSync(file);
    writeFileSync(file, 'bbbb');
    utimesSync(file, before.atime, before.mtime);
    expect(statSync(file).size).toBe(before.size);
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('never trusts a hash taken while the file was racily clean, even when its stat is unchanged', async () => {
    const file = join(dir.dir, 'app/data.txt');
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(file, future, future); // modified "after" the hash was taken: racy
    await fingerprint();
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads.mock.calls.map(([path]) => path)).toEqual([file]);
  });

  it('lookup() matches size, mtime, ctime, inode and mode, and refuses entries stamped no later than the mtime', async () => {
    const cache = await openStatCache(dir.dir);
    const stat = lstatSync(join(dir.dir, 'app/data.txt'), { bigint: true });
    const later = (stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs) + 1n;
    cache.record('a', stat, 'f'.repeat(64), later);
    cache.record('racy', stat, 'e'.repeat(64), stat.mtimeNs);
    expect(cache.lookup('a', stat)).toBe('f'.repeat(64));
    expect(cache.lookup('racy', stat)).toBeUndefined();
    expect(cache.lookup('a', { ...stat, size: stat.size + 1n } as typeof stat)).toBeUndefined();
    expect(cache.lookup('a', { ...stat, ino: stat.ino + 1n } as typeof stat)).toBeUndefined();
    expect(cache.lookup('a', { ...stat, mode: stat.mode ^ 0o100n } as typeof stat)).toBeUndefined();
    expect(cache.lookup('a', { ...stat, ctimeNs: stat.ctimeNs + 1n } as typeof stat)).toBeUndefined();
  });

  it('discards a corrupt cache instead of trusting it', async () => {
    await fingerprint();
    const file = join(dir.dir, '.local/fingerprint/stat-cache.bin');
    const bytes = readFileSync(file);
    // Same length, one digest byte changed: the checksum no longer matches the body.
    const tampered = Buffer.from(bytes);
    tampered[tampered.length - 40] = (tampered[tampered.length - 40] ?? 0) ^ 1;
    writeFileSync(file, tampered);
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(2);
    writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('discards a cache from another version', async () => {
    await fingerprint();
    const file = join(dir.dir, '.local/fingerprint/stat-cache.bin');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('pharos-stat-cache/2');
    expect(at).toBe(0);
    bytes.write('pharos-stat-cache/0', at);
    writeFileSync(file, bytes);
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('reads a cache file that is a symlink as absent, even to a valid cache', async () => {
    await fingerprint();
    const file = join(dir.dir, '.local/fingerprint/stat-cache.bin');
    const elsewhere = join(dir.dir, '.local/elsewhere.bin');
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    reads.mockClear();
    expect(await fingerprint()).toBe(truth());
    expect(reads).toHaveBeenCalledTimes(2);
    expect(lstatSync(file).isSymbolicLink()).toBe(false); // the save replaced the link itself
  });

  it('keeps its state under .local/ with a .gitignore of "*"', async () => {
    await fingerprint();
    expect(readFileSync(join(dir.dir, '.local/.gitignore'), 'utf8')).toBe('*\n');
  });
});
