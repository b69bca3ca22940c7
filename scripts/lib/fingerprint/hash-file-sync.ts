import { openSync, readSync, closeSync, readlinkSync, fstatSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';

const CHUNK = 1 << 20;
let buffer: Buffer | undefined;

export interface FileDigest {
  readonly sha256: string;
  /** The git blob id of the bytes read, when asked for (`sha1` or `sha256` repositories). */
  readonly oid?: string;
  /** The file's ctime (ns, decimal) and size after the last read, when asked for. */
  readonly after?: { readonly ctimeNs: string; readonly size: number };
}

/**
 * Streams one file through SHA-256 in 1 MiB reads; a symlink's content is its target, never followed.
 * With `oidAlgorithm`, the same pass computes the git blob id, so a caller can prove the bytes are a blob.
 */
export function hashFileSync(absPath: string, symlink: boolean, oidAlgorithm?: 'sha1' | 'sha256', expectedSize?: number, statAfter = false): FileDigest {
  const hash = createHash('sha256');
  let after: FileDigest['after'];
  let blob: Hash | undefined;
  let read = 0;
  const update = (bytes: Uint8Array) => {
    hash.update(bytes);
    blob?.update(bytes);
    read += bytes.length;
  };
  const startBlob = (size: number) => {
    if (oidAlgorithm === undefined) return;
    blob = createHash(oidAlgorithm);
    blob.update(`blob ${size}\0`);
  };
  if (symlink) {
    const target = readlinkSync(absPath, { encoding: 'buffer' });
    startBlob(target.length);
    update(target);
  } else {
    buffer ??= Buffer.allocUnsafe(CHUNK);
    const fd = openSync(absPath, 'r');
    try {
      startBlob(expectedSize ?? 0);
      // A short read of a regular file is its end: asking for one byte more than expected saves the read that returns 0.
      const want = expectedSize !== undefined && expectedSize < CHUNK ? expectedSize + 1 : CHUNK;
      for (let n = readSync(fd, buffer, 0, want, null); n > 0; n = readSync(fd, buffer, 0, CHUNK, null)) {
        update(buffer.subarray(0, n));
        if (n < want && want < CHUNK) break;
      }
      if (statAfter) {
        const st = fstatSync(fd, { bigint: true });
        after = { ctimeNs: st.ctimeNs.toString(), size: Number(st.size) };
      }
    } finally {
      closeSync(fd);
    }
  }
  const sha256 = hash.digest('hex');
  // A size that moved while reading means the header was wrong: no blob id rather than a false one.
  const oid = blob !== undefined && (symlink || read === expectedSize) ? blob.digest('hex') : undefined;
  return { sha256, ...(oid === undefined ? {} : { oid }), ...(after === undefined ? {} : { after }) };
}
