import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import * as crypto from 'node:crypto';
import { FILE_PROVE, FILE_SYMLINK } from './disk-file-table.ts';
import { SHA256_BYTES } from './file-digests.ts';
import type { FileDigests } from './file-digests.ts';

const CHUNK = 1 << 20;
let buffer: Buffer | undefined;
// No follow: a listed regular file swapped for a symlink fails instead of vouching for its target's bytes; no block:
// one swapped for a FIFO reads as what is there (nothing) instead of waiting for a writer, and is never proven.
// Neither flag changes how a regular file reads.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
// One call for a file read whole (most files): no Hash object per file. Runtimes without it stream.
const hashOnce = (crypto as { hash?: (algorithm: string, data: Uint8Array, output: 'buffer') => Buffer }).hash;
// The proof's margin: millisecond times are doubles, exact to well under a microsecond at today's clock.
const MARGIN_MS = 0.002;

interface Times {
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** Git's racy-clean rule: written to before the stamp, and not since. */
function settled(stat: Times, stampNs: bigint): boolean {
  return stat.mtimeNs < stampNs && stat.ctimeNs < stampNs;
}

function put(out: FileDigests, i: number, digest: Uint8Array, bytes: number): void {
  out.sha256.set(digest, i * SHA256_BYTES);
  out.bytes[i] = bytes;
}

/**
 * Hashes one file into slot `i` of `out`: SHA-256 of its bytes in 1 MiB reads (of a symlink, its target, never
 * followed). `size` (-1 when unknown) saves the read that returns 0; with `FILE_PROVE` and a stamp, one fstat after
 * reading both proves the bytes (git's racy-clean rule) and says where the file ends. Open, read, fstat, close: four
 * system calls for a file of under 1 MiB.
 */
export function hashFileInto(
  absPath: string,
  size: number,
  flags: number,
  stampNs: bigint | undefined,
  out: FileDigests,
  i: number,
): void {
  const stamp = (flags & FILE_PROVE) === 0 ? undefined : stampNs;
  if ((flags & FILE_SYMLINK) !== 0) {
    const target = readlinkSync(absPath, { encoding: 'buffer' });
    put(out, i, crypto.createHash('sha256').update(target).digest(), target.length);
    if (stamp !== undefined) out.proven[i] = settled(lstatSync(absPath, { bigint: true }), stamp) ? 1 : 0;
    return;
  }
  buffer ??= Buffer.allocUnsafe(CHUNK);
  const fd = openSync(absPath, OPEN_FLAGS);
  try {
    // A short read of a regular file is its end: asking for one byte more than expected saves the read that returns 0.
    const first = size >= 0 && size < CHUNK ? size + 1 : CHUNK;
    const n = readSync(fd, buffer, 0, first, null);
    let whole = n < first && first < CHUNK;
    let proven: boolean | undefined;
    if (!whole && n < first && stamp !== undefined) {
      const after = fstatSync(fd);
      whole = after.size === n;
      if (whole) proven = isSettled(fd, after, stamp);
    }
    if (whole && hashOnce !== undefined) put(out, i, hashOnce('sha256', buffer.subarray(0, n), 'buffer'), n);
    else {
      const hash = crypto.createHash('sha256').update(buffer.subarray(0, n));
      let bytes = n;
      for (let m = whole ? 0 : readSync(fd, buffer, 0, CHUNK, null); m > 0; m = readSync(fd, buffer, 0, CHUNK, null)) {
        hash.update(buffer.subarray(0, m));
        bytes += m;
      }
      put(out, i, hash.digest(), bytes);
    }
    if (stamp !== undefined) out.proven[i] = (proven ?? isSettled(fd, fstatSync(fd), stamp)) ? 1 : 0;
  } finally {
    closeSync(fd);
  }
}

/** The racy-clean rule on a millisecond stat, asking for nanoseconds only when the times are too close to tell. */
function isSettled(fd: number, stat: Stats, stampNs: bigint): boolean {
  if (!stat.isFile()) return false;
  const stampMs = Number(stampNs) / 1e6;
  if (stat.mtimeMs < stampMs - MARGIN_MS && stat.ctimeMs < stampMs - MARGIN_MS) return true;
  if (stat.mtimeMs > stampMs + MARGIN_MS || stat.ctimeMs > stampMs + MARGIN_MS) return false;
  return settled(fstatSync(fd, { bigint: true }), stampNs);
}
