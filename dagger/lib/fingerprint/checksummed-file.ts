import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { writeCacheFile } from './write-cache-file.ts';

/**
 * Cache files carry a header `<format> <sha256 of body>`: a file from another version,
 * truncated or altered reads as absent, so a cache is discarded rather than trusted.
 */
export async function readChecksummed(path: string, format: string): Promise<string | undefined> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch {
    return undefined;
  }
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
  await writeCacheFile(path, Buffer.concat([Buffer.from(`${format} ${sum}\n`), bytes]));
}
