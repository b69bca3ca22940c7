import { openSync, readSync, closeSync, readlinkSync, fstatSync, lstatSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { createHash } from 'node:crypto';

const CHUNK = 1 << 20;
let buffer: Buffer | undefined;

export interface DiskFile {
  readonly path: string;
  /** Bytes, when a stat already said; hashing never needs it. */
  readonly size: number | undefined;
  readonly symlink: boolean;
  /**
   * Prove the bytes read are this git blob, by git's racy-clean rule: after reading, the file's mtime and
   * ctime are both older than `stampNs` (the filesystem's clock taken before git looked), so nothing wrote
   * to it since git vouched for it, nor while it was read. Without a stamp nothing is proven.
   */
  readonly proveBlob?: { readonly oid: string; readonly stampNs: string | undefined };
}

export interface FileDigest {
  readonly sha256: string;
  readonly bytes: number;
  /** With `proveBlob`: whether the bytes read are that blob. */
  readonly proven?: boolean;
}

/** Streams one file through SHA-256 in 1 MiB reads; a symlink's content is its target, never followed. */
export function hashFileSync(absPath: string, file: DiskFile): FileDigest {
  const hash = createHash('sha256');
  const stamp = file.proveBlob?.stampNs === undefined ? undefined : BigInt(file.proveBlob.stampNs);
  const settled = (st: { mtimeNs: bigint; ctimeNs: bigint }) =>
    stamp !== undefined && st.mtimeNs < stamp && st.ctimeNs < stamp;
  if (file.symlink) {
    const target = readlinkSync(absPath, { encoding: 'buffer' });
    const proven = file.proveBlob === undefined ? undefined : settled(lstatSync(absPath, { bigint: true }));
    return {
      sha256: hash.update(target).digest('hex'),
      bytes: target.length,
      ...(proven === undefined ? {} : { proven }),
    };
  }
  buffer ??= Buffer.allocUnsafe(CHUNK);
  const fd = openSync(absPath, 'r');
  try {
    // A short read of a regular file is its end: asking for one byte more than expected saves the read that returns 0.
    let want = file.size !== undefined && file.size < CHUNK ? file.size + 1 : CHUNK;
    let bytes = 0;
    let after: BigIntStats | undefined;
    for (let n = readSync(fd, buffer, 0, want, null); n > 0; n = readSync(fd, buffer, 0, want, null)) {
      hash.update(buffer.subarray(0, n));
      bytes += n;
      if (n < want && want < CHUNK) break;
      if (n < want && file.proveBlob !== undefined) {
        // The proof's fstat says where the end is: no extra read that returns 0 (one system call in five per file).
        after = fstatSync(fd, { bigint: true });
        if (after.size === BigInt(bytes)) break;
        after = undefined;
      }
      want = CHUNK;
    }
    const sha256 = hash.digest('hex');
    if (file.proveBlob === undefined) return { sha256, bytes };
    return { sha256, bytes, proven: settled(after ?? fstatSync(fd, { bigint: true })) };
  } finally {
    closeSync(fd);
  }
}
