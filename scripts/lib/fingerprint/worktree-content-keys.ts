import { createHash } from 'node:crypto';
import type { GitWorktreeSnapshot } from './git-worktree-snapshot.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { isLocalStatePath, LOCAL_DIR } from './local-state.ts';

/** `ls-files -s -z` records as offsets into the buffer (record start, path start, end), in index order. */
interface IndexOffsets {
  readonly count: number;
  readonly start: Int32Array;
  readonly path: Int32Array;
  readonly end: Int32Array;
}

const parsed = new WeakMap<Buffer, IndexOffsets>();

/** Parsed once per snapshot, shared by the content keys and the listing. */
function indexOffsets(index: Buffer): IndexOffsets {
  let known = parsed.get(index);
  if (known === undefined) {
    known = scanIndex(index);
    parsed.set(index, known);
  }
  return known;
}

function scanIndex(index: Buffer): IndexOffsets {
  let capacity = 1024;
  let start = new Int32Array(capacity);
  let path = new Int32Array(capacity);
  let end = new Int32Array(capacity);
  let count = 0;
  for (let at = 0; at < index.length; ) {
    let stop = index.indexOf(0, at);
    if (stop < 0) stop = index.length;
    const tab = index.indexOf(9, at);
    if (tab > at && tab < stop) {
      if (count === capacity) {
        capacity *= 2;
        const grow = (a: Int32Array) => {
          const b = new Int32Array(capacity);
          b.set(a);
          return b;
        };
        [start, path, end] = [grow(start), grow(path), grow(end)];
      }
      start[count] = at;
      path[count] = tab + 1;
      end[count] = stop;
      count++;
    }
    at = stop + 1;
  }
  return { count, start, path, end };
}

function lowerBound(index: Buffer, o: IndexOffsets, key: Buffer): number {
  let lo = 0;
  let hi = o.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index.compare(key, 0, key.length, o.path[mid], o.end[mid]) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Record runs `[from, to)` at or under a path: the path itself, and the folder's one run (index order is bytewise). */
function runs(index: Buffer, o: IndexOffsets, prefix: string): [number, number][] {
  if (prefix === '.') return [[0, o.count]];
  const out: [number, number][] = [];
  const key = Buffer.from(prefix);
  const exact = lowerBound(index, o, key);
  if (exact < o.count && index.compare(key, 0, key.length, o.path[exact], o.end[exact]) === 0) out.push([exact, exact + 1]);
  const from = lowerBound(index, o, Buffer.from(`${prefix}/`));
  const to = lowerBound(index, o, Buffer.from(`${prefix}0`)); // '0' follows '/'
  if (to > from) out.push([from, to]);
  return out;
}

/** Byte ranges `[start, end)` of the `ls-files -s -z` buffer holding the records at or under any prefix, merged, in order. */
export function indexByteRanges(index: Buffer, prefixes: readonly string[]): [number, number][] {
  const o = indexOffsets(index);
  const merged: [number, number][] = [];
  const all = prefixes.flatMap((p) => runs(index, o, p)).sort((a, b) => a[0] - b[0]);
  for (const [from, to] of all) {
    const last = merged[merged.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged.map(([from, to]) => [o.start[from] ?? 0, (o.end[to - 1] ?? 0) + 1]);
}

/** Every path `status --porcelain=v2 -z` reports (relative to the folder); a nested repository ends in `/`. */
export function statusPaths(snapshot: GitWorktreeSnapshot): string[] {
  const out: string[] = [];
  for (const record of snapshot.status.toString('utf8').split('\0')) {
    const kind = record[0];
    const fields = record.split(' ');
    const full = kind === '?' || kind === '!' ? record.slice(2) : kind === '1' ? fields.slice(8).join(' ') : kind === 'u' ? fields.slice(10).join(' ') : kind === '2' ? fields.slice(9).join(' ') : undefined;
    if (full !== undefined && full.startsWith(snapshot.prefix)) out.push(full.slice(snapshot.prefix.length));
  }
  return out;
}

/**
 * Content keys for parts of a clean working tree: the `ls-files -s` records (blob ids and modes) at or
 * under some paths, when git reports nothing there (no change, no untracked file, no conflict). Such a
 * key names the bytes of every file under those paths, so a result remembered under it is never stale;
 * a change elsewhere in the tree leaves it as it was. Undefined where git reports anything.
 * Works on the raw buffer (index order is bytewise, and the records under a folder are one run of it):
 * a 50,000-file index costs one scan and one hash update per input, no string per file.
 */
export function worktreeContentKeys(snapshot: GitWorktreeSnapshot): (prefixes: readonly string[]) => string | undefined {
  const index = snapshot.index;
  let offsets: IndexOffsets | undefined;
  let reported: string[] | undefined;
  const digests = new Map<string, string>();
  const digestOf = (prefix: string): string => {
    let digest = digests.get(prefix);
    if (digest !== undefined) return digest;
    const o = (offsets ??= indexOffsets(index));
    const local = runs(index, o, LOCAL_DIR); // the toolkit's own state is never part of a file set, even if tracked
    const hash = createHash('sha256');
    for (const [from, to] of runs(index, o, prefix)) {
      let at = from;
      for (const [skipFrom, skipTo] of local) {
        if (skipTo <= at || skipFrom >= to) continue;
        if (skipFrom > at) hash.update(index.subarray(o.start[at], (o.end[skipFrom - 1] ?? 0) + 1));
        at = Math.max(at, skipTo);
      }
      if (at < to) hash.update(index.subarray(o.start[at], (o.end[to - 1] ?? 0) + 1));
    }
    digest = hash.digest('hex');
    digests.set(prefix, digest);
    return digest;
  };
  return (prefixes) => {
    reported ??= statusPaths(snapshot).filter((p) => !isLocalStatePath(p));
    const touched = (path: string) => {
      const dir = path.endsWith('/') ? path.slice(0, -1) : undefined;
      return prefixes.some((p) => isAtOrUnder(dir ?? path, p) || (dir !== undefined && isAtOrUnder(p, dir)));
    };
    if (reported.some(touched)) return undefined;
    const parts = [...new Set(prefixes)].sort().map((p) => `${p}\0${digestOf(p)}`);
    return `git-index:${createHash('sha256').update(parts.join('\n')).digest('hex')}`;
  };
}
