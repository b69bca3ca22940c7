import { openSync, readSync, closeSync, readlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';

const CHUNK = 1 << 20;
let buffer: Buffer | undefined;

/** Streams one file through SHA-256 in 1 MiB reads; a symlink's content is its target, never followed. */
export function hashFileSync(absPath: string, symlink: boolean): string {
  const hash = createHash('sha256');
  if (symlink) return hash.update(readlinkSync(absPath, { encoding: 'buffer' })).digest('hex');
  buffer ??= Buffer.allocUnsafe(CHUNK);
  const fd = openSync(absPath, 'r');
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
