// Reads Git's index file (`.git/index`, versions 2–4) as Documentation/gitformat-index.txt lays it out, into
// typed arrays over the file's own buffer: one record offset, mode, stage and path range per entry, the object ids
// copied into one buffer, no object per file.
import { createHash } from 'node:crypto';

/** Why the index cannot be read here; the caller falls back to asking git itself. */
export class IndexRefusal extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`git index not read directly: ${reason}`);
    this.reason = reason;
  }
}

export const FLAG_ASSUME_VALID = 0x8000;
export const EXT_SKIP_WORKTREE = 0x4000;
export const EXT_INTENT_TO_ADD = 0x2000;

/** Field positions (32-bit big-endian words) at the start of each entry record. */
export const CTIME_S = 0;
export const CTIME_NS = 4;
export const MTIME_S = 8;
export const MTIME_NS = 12;
export const INO = 20;
export const MODE = 24;
export const UID = 28;
export const GID = 32;
export const SIZE = 36;
export const OID = 40;

/**
 * Index entries as typed arrays, in index order (bytewise by path): what the index reader and git's own
 * `ls-files -s` both give, and what the listing and the content keys read.
 */
export interface IndexEntries {
  readonly count: number;
  /** Entry i's path is `paths[pathStart[i], pathStart[i + 1] - 1)`, each followed by a NUL: one buffer of every path. */
  readonly paths: Buffer;
  readonly pathStart: Uint32Array;
  /** Git's mode (0o100644, 0o100755, 0o120000, 0o160000) and stage (0 normal, 1–3 a conflict side) of entry i. */
  readonly mode: Uint32Array;
  readonly stage: Uint8Array;
  /** Entry i's object id is `oids[i * oidBytes, (i + 1) * oidBytes)`. */
  readonly oids: Buffer;
  /** Bytes per object id: 20 (SHA-1) or 32 (SHA-256). */
  readonly oidBytes: number;
}

export interface GitIndex extends IndexEntries {
  readonly version: number;
  /** The index file's bytes: every entry's stat data is read from it in place. */
  readonly data: Buffer;
  /** Offset of entry i's record in `data`. */
  readonly record: Uint32Array;
  /** Entry i's extended flags (0 when none). */
  readonly extended: Uint16Array;
  /** Whether git's untracked cache (`UNTR`) is present; read by nothing yet, reported by the snapshot. */
  readonly untrackedCache: boolean;
}

/** The end (exclusive, before its NUL) of entry i's path. */
export const pathEnd = (entries: IndexEntries, i: number): number => (entries.pathStart[i + 1] as number) - 1;

/** Git's offset varint of version 4 (each continuation adds one before shifting). */
function varint(data: Buffer, at: number): [number, number] {
  let byte = data[at++] ?? 0;
  let value = byte & 127;
  while (byte & 128) {
    byte = data[at++] ?? 0;
    value = ((value + 1) << 7) | (byte & 127);
  }
  return [value, at];
}

/**
 * Parses an index file. Refuses what it cannot read faithfully: an unknown version, a torn or altered file
 * (its trailing checksum), a split index (`link`) or sparse directory entries (`sdir`), any other required
 * extension. Optional extensions (the cache tree, the untracked cache, fsmonitor data, …) are skipped: the
 * entries alone say what is tracked, and every stat is compared afresh.
 */
export function parseGitIndex(data: Buffer, oidBytes: 20 | 32 = 20): GitIndex {
  if (data.length < 12 + oidBytes || data.toString('latin1', 0, 4) !== 'DIRC') throw new IndexRefusal('not an index');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) throw new IndexRefusal(`index version ${version}`);
  const end = data.length - oidBytes;
  const trailer = data.subarray(end);
  // index.skipHash writes zeros; otherwise the checksum proves the file is whole (git renames it into place).
  if (trailer.some((b) => b !== 0)) {
    const digest = createHash(oidBytes === 20 ? 'sha1' : 'sha256')
      .update(data.subarray(0, end))
      .digest();
    if (!digest.equals(trailer)) throw new IndexRefusal('checksum does not match');
  }
  const count = data.readUInt32BE(8);
  const record = new Uint32Array(count);
  const mode = new Uint32Array(count);
  const stage = new Uint8Array(count);
  const extended = new Uint16Array(count);
  const pathStart = new Uint32Array(count + 1);
  const oids = Buffer.allocUnsafe(count * oidBytes);
  // Versions 2 and 3 keep each path whole in the file: one copy into the path buffer. Version 4 strips the
  // previous path's tail and appends a suffix: rebuilt into the same buffer.
  let paths = Buffer.allocUnsafe(Math.max(64, data.length));
  let pathEnd = 0;
  let at = 12;
  const fixed = OID + oidBytes + 2;
  for (let i = 0; i < count; i++) {
    if (at + fixed > end) throw new IndexRefusal('entries run past the end');
    const recordAt = at;
    record[i] = at;
    mode[i] = data.readUInt32BE(at + MODE);
    // A byte loop: a native copy call per 20 bytes costs more than the copy.
    for (let b = 0, from = at + OID, to = i * oidBytes; b < oidBytes; b++) oids[to + b] = data[from + b] as number;
    const flag = data.readUInt16BE(at + OID + oidBytes);
    stage[i] = (flag >> 12) & 3;
    let name = at + fixed;
    if (flag & 0x4000) {
      if (version < 3) throw new IndexRefusal('extended flags in a version 2 index');
      extended[i] = data.readUInt16BE(name);
      name += 2;
    }
    const start = pathEnd;
    if (version === 4) {
      const [strip, after] = varint(data, name);
      const previous = pathStart[i - 1] ?? 0;
      const previousLength = i === 0 ? 0 : start - 1 - previous;
      if (strip > previousLength) throw new IndexRefusal('bad path compression');
      const nul = data.indexOf(0, after);
      if (nul < 0 || nul >= end) throw new IndexRefusal('unterminated path');
      const kept = previousLength - strip;
      const need = kept + (nul - after) + 1;
      if (start + need > paths.length) {
        const grown = Buffer.allocUnsafe(Math.max(paths.length * 2, start + need));
        paths.copy(grown, 0, 0, start);
        paths = grown;
      }
      paths.copyWithin(start, previous, previous + kept);
      data.copy(paths, start + kept, after, nul);
      pathEnd = start + need;
      at = nul + 1;
    } else {
      const nul = data.indexOf(0, name);
      if (nul < 0 || nul >= end) throw new IndexRefusal('unterminated path');
      if (start + (nul - name) + 1 > paths.length) throw new IndexRefusal('paths run past the end');
      data.copy(paths, start, name, nul);
      pathEnd = start + (nul - name) + 1;
      at = recordAt + ((nul - recordAt + 8) & ~7); // 1–8 NULs pad each record to a multiple of eight
    }
    paths[pathEnd - 1] = 0;
    pathStart[i + 1] = pathEnd;
  }
  let untrackedCache = false;
  while (at + 8 <= end) {
    const signature = data.toString('latin1', at, at + 4);
    const size = data.readUInt32BE(at + 4);
    if (signature === 'link') throw new IndexRefusal('split index (core.splitIndex)');
    if (signature === 'sdir') throw new IndexRefusal('sparse index (index.sparse)');
    if (signature === 'UNTR') untrackedCache = true;
    const first = signature.charCodeAt(0);
    if (first < 65 || first > 90) throw new IndexRefusal(`required extension "${signature}"`);
    at += 8 + size;
  }
  if (at !== end) throw new IndexRefusal('extensions run past the end');
  return {
    version,
    count,
    data,
    oidBytes,
    record,
    mode,
    stage,
    extended,
    paths: paths.subarray(0, pathEnd),
    pathStart,
    oids,
    untrackedCache,
  };
}
