import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { writeCacheFile } from './write-cache-file.ts';

const SHA_BYTES = 32;
// Far above any cache a real tree writes (a million blobs is ~52 MB): a larger file is not ours to load.
const MAX_CACHE_BYTES = 1 << 30;
// No follow, no block: a cache path that is a symlink (say to a file elsewhere) or a FIFO reads as absent at once.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The bytes of a cache file, or undefined when it is missing, not a regular file, or implausibly large. */
export async function readCacheBytes(path: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_CACHE_BYTES) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Cache files carry a header `<format> <sha256 of body>`: a file from another version,
 * truncated or altered reads as absent, so a cache is discarded rather than trusted.
 */
export async function readChecksummed(path: string, format: string): Promise<string | undefined> {
  const data = await readCacheBytes(path);
  if (data === undefined) return undefined;
  const newline = data.indexOf(10);
  if (newline < 0) return undefined;
  const [name, sum] = data.subarray(0, newline).toString('utf8').split(' ');
  if (name !== format || sum === undefined) return undefined;
  const body = data.subarray(newline + 1);
  if (createHash('sha256').update(body).digest('hex') !== sum) return undefined;
  return body.toString('utf8');
}

export async function writeChecksummed(path: string, format: string, body: string): Promise<void> {
  const bytes = Buffer.from(body, 'utf8');
  const sum = createHash('sha256').update(bytes).digest('hex');
  await writeCacheFile(path, [Buffer.from(`${format} ${sum}\n`), bytes]);
}

/**
 * A binary cache file: `magic`, the body, then the SHA-256 of both. The body (a view of the bytes read, no copy),
 * or undefined when the file is absent, of another format, truncated or altered.
 */
export async function readSealed(path: string, magic: Uint8Array): Promise<Buffer | undefined> {
  const data = await readCacheBytes(path);
  if (data === undefined || data.length < magic.length + SHA_BYTES) return undefined;
  if (!data.subarray(0, magic.length).equals(magic)) return undefined;
  const end = data.length - SHA_BYTES;
  const sum = createHash('sha256').update(data.subarray(0, end)).digest();
  return sum.equals(data.subarray(end)) ? data.subarray(magic.length, end) : undefined;
}

/** Writes `magic`, the body's parts and their SHA-256, without joining the parts into one buffer first. */
export async function writeSealed(path: string, magic: Uint8Array, body: readonly Uint8Array[]): Promise<void> {
  const hash = createHash('sha256').update(magic);
  for (const part of body) hash.update(part);
  await writeCacheFile(path, [magic, ...body, hash.digest()]);
}
