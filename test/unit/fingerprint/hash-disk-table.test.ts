// Hashing the cold path's table: the digests are SHA-256 of each file's bytes (of a symlink, its target), the same on
// one thread and on several, and a proof says only what git's racy-clean rule allows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskFileTableBuilder, FILE_PROVE, FILE_SYMLINK } from '../../../scripts/lib/fingerprint/disk-file-table.ts';
import { digestHex } from '../../../scripts/lib/fingerprint/file-digests.ts';
import { hashDiskTable, hashWorkers } from '../../../scripts/lib/fingerprint/hash-disk-files.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pharos-hash-table-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const past = new Date(Date.now() - 60_000);

/** Files of many sizes: empty, one byte, around the 1 MiB read, and larger. */
function someFiles(): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (const [i, size] of [0, 1, 4095, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20].entries())
    files[`f${i}-${size}.bin`] = randomBytes(size);
  for (let i = 0; i < 60; i++) files[`small/${i}.txt`] = Buffer.from(`file ${i}\n`.repeat(i));
  return files;
}

function write(files: Record<string, Buffer>): void {
  for (const [path, bytes] of Object.entries(files)) {
    execFileSync('mkdir', ['-p', join(dir, path, '..')]);
    writeFileSync(join(dir, path), bytes);
    utimesSync(join(dir, path), past, past);
  }
}

describe('hashDiskTable()', () => {
  it('gives the SHA-256 of each file, with the right byte count, whatever the size hint says', async () => {
    const files = someFiles();
    write(files);
    const builder = new DiskFileTableBuilder();
    const names = Object.keys(files);
    // Exact, unknown, too small and too large hints: a hint saves a read, never changes the answer.
    names.forEach((p, i) => builder.add(p, [files[p]?.length, undefined, 0, 1 << 22][i % 4], 0));
    const digests = await hashDiskTable(dir, builder.build(undefined));
    names.forEach((p, i) => {
      expect(digestHex(digests, i)).toBe(sha(files[p] as Buffer));
      expect(digests.bytes[i]).toBe(files[p]?.length);
      expect(digests.proven[i]).toBe(0);
    });
  });

  it('gives the same digests on a worker thread as on one thread', async () => {
    const files = someFiles();
    write(files);
    const names = Object.keys(files);
    const table = () => {
      const builder = new DiskFileTableBuilder();
      for (const p of names) builder.add(p, undefined, FILE_PROVE);
      // A stamp after every write: Date.now() alone is truncated to its millisecond, which the last write may share.
      return builder.build(BigInt(Date.now() + 1) * 1_000_000n);
    };
    const parallel = await hashDiskTable(dir, table(), undefined, { parallelBytes: 1, workers: 1 });
    const serial = await hashDiskTable(dir, table(), undefined, { parallelBytes: Number.POSITIVE_INFINITY });
    expect(parallel.sha256.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(parallel.sha256).equals(Buffer.from(serial.sha256))).toBe(true);
    expect(Array.from(parallel.bytes)).toEqual(Array.from(serial.bytes));
    expect(Array.from(parallel.proven)).toEqual(names.map(() => 1));
  });

  it('hashes a symlink as its target text, never following it', async () => {
    writeFileSync(join(dir, 'real.txt'), 'the content');
    symlinkSync('real.txt', join(dir, 'link'));
    symlinkSync('nowhere/at/all', join(dir, 'dangling'));
    const builder = new DiskFileTableBuilder();
    builder.add('link', undefined, FILE_SYMLINK);
    builder.add('dangling', undefined, FILE_SYMLINK);
    const digests = await hashDiskTable(dir, builder.build(undefined));
    expect(digestHex(digests, 0)).toBe(sha('real.txt'));
    expect(digestHex(digests, 1)).toBe(sha('nowhere/at/all'));
  });

  it('proves a file only when its mtime and ctime are both older than the stamp', async () => {
    writeFileSync(join(dir, 'a'), 'a');
    const { mtimeNs, ctimeNs } = statSync(join(dir, 'a'), { bigint: true });
    const newest = mtimeNs > ctimeNs ? mtimeNs : ctimeNs;
    const proof = async (stampNs: bigint | undefined, flags = FILE_PROVE) => {
      const builder = new DiskFileTableBuilder();
      builder.add('a', 1, flags);
      return (await hashDiskTable(dir, builder.build(stampNs))).proven[0];
    };
    expect(await proof(newest + 1n)).toBe(1);
    expect(await proof(newest + 1_000_000_000n)).toBe(1);
    expect(await proof(newest)).toBe(0); // racily clean: written in the stamp's own tick
    expect(await proof(newest - 1n)).toBe(0);
    expect(await proof(undefined)).toBe(0);
    expect(await proof(newest + 1n, 0)).toBe(0); // not asked to prove
  });

  it('refuses a listed regular file that is now a symlink, rather than vouch for its target', async () => {
    writeFileSync(join(dir, 'target'), 'elsewhere');
    symlinkSync('target', join(dir, 'was-a-file'));
    const builder = new DiskFileTableBuilder();
    builder.add('was-a-file', undefined, FILE_PROVE);
    await expect(hashDiskTable(dir, builder.build(BigInt(Date.now() + 60_000) * 1_000_000n))).rejects.toMatchObject({
      code: 'read-failed',
      details: { path: 'was-a-file' },
    });
  });

  it('reads a listed file that is now a FIFO as what is there, without waiting for a writer, and never proves it', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const builder = new DiskFileTableBuilder();
    builder.add('pipe', undefined, FILE_PROVE);
    const digests = await hashDiskTable(dir, builder.build(BigInt(Date.now() + 60_000) * 1_000_000n));
    expect(digestHex(digests, 0)).toBe(sha(''));
    expect(digests.proven[0]).toBe(0);
  });

  it('names the file that vanished when a worker thread hashed it', async () => {
    write(someFiles());
    const builder = new DiskFileTableBuilder();
    for (let i = 0; i < 600; i++) builder.add(`small/${i % 60}.txt`, 1, 0); // past the first range: the worker's
    builder.add('small/gone.txt', 1, 0);
    await expect(
      hashDiskTable(dir, builder.build(undefined), undefined, { parallelBytes: 1, workers: 1 }),
    ).rejects.toMatchObject({ code: 'read-failed', details: { path: 'small/gone.txt' } });
  });
});

describe('hashWorkers()', () => {
  it('takes no thread for one file or little to read, and as many as asked otherwise', () => {
    expect(hashWorkers(1, 1 << 30, { workers: 3 })).toBe(0);
    expect(hashWorkers(1000, 1 << 20, { workers: 3 })).toBe(0);
    expect(hashWorkers(1000, 1 << 30, { workers: 2 })).toBe(2);
    const auto = hashWorkers(1000, 1 << 30);
    expect(auto).toBeGreaterThanOrEqual(0);
    expect(auto).toBeLessThanOrEqual(3);
  });
});
