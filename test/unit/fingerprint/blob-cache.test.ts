// The blob cache in memory as its file holds it, and the file read as empty whenever it is not exactly what this
// version wrote: truncated, altered, another format, a symlink, a FIFO.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobTable, openBlobCache } from '../../../scripts/lib/fingerprint/blob-cache.ts';

const hex = (seed: string, bytes = 32) =>
  createHash('sha256')
    .update(seed)
    .digest('hex')
    .repeat(2)
    .slice(0, bytes * 2);
const oid = (i: number) => hex(`oid ${i}`, 20);
const sha = (i: number) => hex(`sha ${i}`);

let root: string;
let file: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pharos-blob-cache-'));
  file = join(root, '.local/fingerprint/blobs.bin');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function saved(count: number): Promise<void> {
  const cache = await openBlobCache(root);
  for (let i = 0; i < count; i++) cache.set(oid(i), sha(i));
  await cache.save();
}

describe('BlobTable', () => {
  it('answers every entry set, through many growths of its records and index', () => {
    const table = new BlobTable(20);
    for (let i = 0; i < 5000; i++) expect(table.set(oid(i), Buffer.from(sha(i), 'hex'))).toBe(true);
    expect(table.size).toBe(5000);
    for (let i = 0; i < 5000; i++) expect(table.get(oid(i))).toBe(sha(i));
    expect(table.get(oid(5000))).toBeUndefined();
    expect(table.records().length).toBe(5000 * 52);
  });

  it('replaces an entry in place, and says when a set changed nothing', () => {
    const table = new BlobTable(32);
    const id = hex('blob');
    expect(table.set(id, Buffer.from(sha(1), 'hex'))).toBe(true);
    expect(table.set(id, Buffer.from(sha(1), 'hex'))).toBe(false);
    expect(table.set(id, Buffer.from(sha(2), 'hex'))).toBe(true);
    expect(table.get(id)).toBe(sha(2));
    expect(table.size).toBe(1);
  });

  it('takes digests from a slot of a larger buffer', () => {
    const table = new BlobTable(20);
    const slots = Buffer.concat([Buffer.from(sha(0), 'hex'), Buffer.from(sha(1), 'hex')]);
    table.set(oid(7), slots, 32);
    expect(table.get(oid(7))).toBe(sha(1));
    expect(table.set(oid(8), slots, 48)).toBe(false); // no whole digest there
  });

  it('ignores what is no blob id of its width', () => {
    const table = new BlobTable(20);
    const digest = Buffer.from(sha(0), 'hex');
    for (const bad of ['', 'abc', hex('x', 32), `${oid(0).slice(0, 39)}g`, `${oid(0)}0`]) {
      expect(table.set(bad, digest)).toBe(false);
      expect(table.get(bad)).toBeUndefined();
    }
    expect(table.size).toBe(0);
  });

  it('reads records in place and skips a repeated blob id', () => {
    const record = (i: number, digest: string) =>
      Buffer.concat([Buffer.from(oid(i), 'hex'), Buffer.from(digest, 'hex')]);
    const table = new BlobTable(20, Buffer.concat([record(1, sha(1)), record(2, sha(2)), record(1, sha(9))]));
    expect(table.size).toBe(2);
    expect(table.get(oid(1))).toBe(sha(1));
    expect(table.get(oid(2))).toBe(sha(2));
  });
});

describe('openBlobCache()', () => {
  it('keeps what it saved, in the format it has always had', async () => {
    await saved(300);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 21).toString()).toBe('pharos-blob-sha256/2\n');
    expect(bytes[21]).toBe(20);
    expect(bytes.length).toBe(22 + 300 * 52 + 32);
    const body = bytes.subarray(0, bytes.length - 32);
    expect(
      createHash('sha256')
        .update(body)
        .digest()
        .equals(bytes.subarray(bytes.length - 32)),
    ).toBe(true);
    const cache = await openBlobCache(root);
    for (let i = 0; i < 300; i++) expect(cache.get(oid(i))).toBe(sha(i));
  });

  it('reads a truncated, altered or foreign file as empty', async () => {
    await saved(10);
    const good = readFileSync(file);
    const variants = [
      good.subarray(0, good.length - 1),
      good.subarray(0, 30),
      Buffer.alloc(0),
      Buffer.concat([good.subarray(0, 40), Buffer.of((good[40] ?? 0) ^ 1), good.subarray(41)]),
      Buffer.concat([Buffer.from('pharos-blob-sha256/1\n'), good.subarray(21)]),
    ];
    for (const bytes of variants) {
      writeFileSync(file, bytes);
      expect((await openBlobCache(root)).get(oid(0))).toBeUndefined();
    }
  });

  it('reads a cache path that is a symlink as empty, and replaces the link, not its target', async () => {
    await saved(3);
    const elsewhere = join(root, 'elsewhere.bin');
    writeFileSync(elsewhere, readFileSync(file)); // a valid cache, reached through a link
    rmSync(file);
    symlinkSync(elsewhere, file);
    const cache = await openBlobCache(root);
    expect(cache.get(oid(0))).toBeUndefined();
    cache.set(oid(5), sha(5));
    await cache.save();
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect((await openBlobCache(root)).get(oid(5))).toBe(sha(5));
    expect((await openBlobCache(root)).get(oid(0))).toBeUndefined();
    expect(readFileSync(elsewhere).length).toBe(22 + 3 * 52 + 32);
  });

  it('reads a cache path that is a FIFO or a folder as empty, at once', async () => {
    mkdirSync(join(root, '.local/fingerprint'), { recursive: true });
    execFileSync('mkfifo', [file]);
    expect((await openBlobCache(root)).get(oid(0))).toBeUndefined();
    rmSync(file);
    mkdirSync(file);
    expect((await openBlobCache(root)).get(oid(0))).toBeUndefined();
  });

  it('starts over for a repository of the other object format', async () => {
    await saved(2);
    const cache = await openBlobCache(root);
    const long = hex('sha256 blob');
    cache.set(long, sha(3));
    expect(cache.get(long)).toBe(sha(3));
    expect(cache.get(oid(0))).toBeUndefined();
    await cache.save();
    expect(readFileSync(file)[21]).toBe(32);
  });

  it('writes nothing when nothing changed', async () => {
    await saved(2);
    rmSync(file);
    const cache = await openBlobCache(root);
    cache.set(oid(0), 'not a digest');
    await cache.save();
    expect(() => lstatSync(file)).toThrow();
  });
});
