// The content keys of worktree-content-keys.ts, from git's own `ls-files -s` and `status` text.
import { createHash } from 'node:crypto';
import type { GitCommandsSnapshot } from './worktree-snapshot.ts';
import { parseStatusRecords, reportsUnder } from './status-records.ts';
import { isLocalStatePath, LOCAL_DIR } from './local-state.ts';
import { mergeRanges } from './sorted-paths.ts';

/** End of the record starting at `start` (the position of its NUL, or the buffer's end). */
function recordEnd(index: Buffer, start: number): number {
  const end = index.indexOf(0, start);
  return end < 0 ? index.length : end;
}

/**
 * Byte offset of the first `ls-files -s -z` record whose path sorts at or after `key` (bytewise, as the index
 * is ordered), found by binary search on the raw buffer: from any byte, the next NUL starts a record. A lookup
 * reads about 20 records, whatever the size of the index.
 */
function lowerBound(index: Buffer, key: Buffer): number {
  let lo = 0; // always a record start
  let hi = index.length; // a record start or the end
  while (lo < hi) {
    const mid = lo + ((hi - lo) >>> 1);
    const nul = mid === 0 ? -1 : index.indexOf(0, mid - 1);
    const start = mid === 0 ? 0 : nul < 0 ? index.length : nul + 1;
    if (start >= hi) {
      hi = mid; // no record starts in [mid, hi): the answer lies before
      continue;
    }
    const end = recordEnd(index, start);
    const tab = index.indexOf(9, start);
    const path = tab >= 0 && tab < end ? tab + 1 : end;
    if (index.compare(key, 0, key.length, path, end) < 0) lo = end + 1;
    else hi = start;
  }
  return lo;
}

/** Byte ranges `[start, end)` of the records at or under a path: the path itself, and the folder's one run. */
function runs(index: Buffer, prefix: string): [number, number][] {
  if (prefix === '.') return index.length === 0 ? [] : [[0, index.length]];
  const out: [number, number][] = [];
  const key = Buffer.from(prefix);
  const exact = lowerBound(index, key);
  if (exact < index.length) {
    const end = recordEnd(index, exact);
    const tab = index.indexOf(9, exact);
    if (tab >= 0 && tab < end && index.compare(key, 0, key.length, tab + 1, end) === 0) out.push([exact, end + 1]);
  }
  const from = lowerBound(index, Buffer.from(`${prefix}/`));
  const to = lowerBound(index, Buffer.from(`${prefix}0`)); // '0' follows '/'
  if (to > from) out.push([from, to]);
  return out;
}

/** Byte ranges of the `ls-files -s -z` buffer holding the records at or under any prefix, merged, in order. */
export function indexByteRanges(index: Buffer, prefixes: readonly string[]): [number, number][] {
  return mergeRanges(prefixes.flatMap((p) => runs(index, p)));
}

/**
 * Content keys from git's own output (the default snapshot): the `ls-files -s` records (blob ids and modes) at or
 * under some paths, when git reports nothing there (no change, no untracked file, no conflict). Such a
 * key names the bytes of every file under those paths, so a result remembered under it is never stale;
 * a change elsewhere in the tree leaves it as it was. Undefined where git reports anything.
 * Works on the raw buffer (index order is bytewise, and the records under a folder are one run of it):
 * a key costs a few binary searches and one hash update per input, no string per file and no scan.
 */
export function gitTextContentKeys(snapshot: GitCommandsSnapshot): (prefixes: readonly string[]) => string | undefined {
  const index = snapshot.index;
  let local: [number, number][] | undefined;
  let reported: readonly string[] | undefined;
  const digests = new Map<string, string>();
  const digestOf = (prefix: string): string => {
    let digest = digests.get(prefix);
    if (digest !== undefined) return digest;
    local ??= runs(index, LOCAL_DIR); // the toolkit's own state is never part of a file set, even if tracked
    const hash = createHash('sha256');
    for (const [from, to] of runs(index, prefix)) {
      let at = from;
      for (const [skipFrom, skipTo] of local) {
        if (skipTo <= at || skipFrom >= to) continue;
        if (skipFrom > at) hash.update(index.subarray(at, skipFrom));
        at = Math.max(at, skipTo);
      }
      if (at < to) hash.update(index.subarray(at, to));
    }
    digest = hash.digest('hex');
    digests.set(prefix, digest);
    return digest;
  };
  return (prefixes) => {
    reported ??= parseStatusRecords(snapshot.status, snapshot.prefix).reported.filter((p) => !isLocalStatePath(p));
    if (reportsUnder(reported, prefixes)) return undefined;
    const parts = [...new Set(prefixes)].sort().map((p) => `${p}\0${digestOf(p)}`);
    return `git-index:${createHash('sha256').update(parts.join('\n')).digest('hex')}`;
  };
}
