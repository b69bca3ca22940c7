// The compact forms of the cold path: the table of files to hash and the digests written back, both without an
// object or string per file, and in shared memory when a worker thread reads them.
import { describe, expect, it } from 'vitest';
import {
  DiskFileTableBuilder,
  FILE_PROVE,
  FILE_SYMLINK,
  isShared,
  sharedTable,
  tablePath,
} from '../../../scripts/lib/fingerprint/disk-file-table.ts';
import { digestHex, fileDigests, SHA256_BYTES } from '../../../scripts/lib/fingerprint/file-digests.ts';

const paths = ['a', 'dir/ünïcødé/名前.txt', 'x'.repeat(5000), 'b c/d\te', 'z'];

describe('DiskFileTableBuilder', () => {
  it('gives back every path, size and flag it was given, past its first capacity', () => {
    const builder = new DiskFileTableBuilder();
    const many = Array.from({ length: 300 }, (_, i) => paths[i % paths.length] + String(i));
    many.forEach((p, i) => {
      expect(builder.add(p, i % 3 === 0 ? undefined : i, i % 2 === 0 ? FILE_SYMLINK : FILE_PROVE)).toBe(i);
    });
    const table = builder.build(123n);
    expect(table.count).toBe(many.length);
    expect(table.stampNs).toBe(123n);
    expect(many.map((_, i) => tablePath(table, i))).toEqual(many);
    expect(Array.from(table.sizes.subarray(0, 4))).toEqual([-1, 1, 2, -1]);
    expect(table.flags[0]).toBe(FILE_SYMLINK);
    expect(table.flags[1]).toBe(FILE_PROVE);
    expect(table.paths.length).toBe(many.reduce((sum, p) => sum + Buffer.byteLength(p), 0));
  });

  it('allocates once in shared memory when given the exact sizes, so hashing on threads copies nothing', () => {
    const pathBytes = paths.reduce((sum, p) => sum + Buffer.byteLength(p), 0);
    const builder = new DiskFileTableBuilder({ files: paths.length, pathBytes, shared: true });
    for (const p of paths) builder.add(p, 1, 0);
    const table = builder.build(undefined);
    expect(isShared(table)).toBe(true);
    expect(table.paths.buffer.byteLength).toBe(pathBytes);
    expect(sharedTable(table)).toBe(table);
    expect(paths.map((_, i) => tablePath(table, i))).toEqual(paths);
  });

  it('copies a table in private memory into shared memory, path for path', () => {
    const builder = new DiskFileTableBuilder({ files: 1, pathBytes: 1, shared: false });
    for (const p of paths) builder.add(p, 7, FILE_PROVE);
    const table = builder.build(5n);
    expect(isShared(table)).toBe(false);
    const copy = sharedTable(table);
    expect(isShared(copy)).toBe(true);
    expect(paths.map((_, i) => tablePath(copy, i))).toEqual(paths);
    expect(Array.from(copy.sizes)).toEqual(paths.map(() => 7));
    expect(copy.stampNs).toBe(5n);
  });

  it('an empty table has no paths', () => {
    const table = new DiskFileTableBuilder().build(undefined);
    expect(table.count).toBe(0);
    expect(sharedTable(table).count).toBe(0);
  });
});

describe('fileDigests()', () => {
  it('keeps one 32-byte slot per file and reads each back as hex', () => {
    const digests = fileDigests(3, true);
    expect(digests.sha256.length).toBe(3 * SHA256_BYTES);
    expect(digests.sha256.buffer).toBeInstanceOf(SharedArrayBuffer);
    digests.sha256.fill(0xab, SHA256_BYTES, 2 * SHA256_BYTES);
    expect(digestHex(digests, 0)).toBe('00'.repeat(32));
    expect(digestHex(digests, 1)).toBe('ab'.repeat(32));
    expect(fileDigests(1).sha256.buffer).toBeInstanceOf(ArrayBuffer);
  });
});
