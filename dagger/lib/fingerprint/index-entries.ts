// Lookups on index entries held as typed arrays (git-index.ts): paths decoded only for the entries asked for,
// runs under a path found by binary search on the one path buffer.
import type { IndexEntries } from './git-index.ts';
import { pathEnd } from './git-index.ts';
import type { IndexRange } from './sorted-paths.ts';
import { mergeRanges } from './sorted-paths.ts';

/** Entry i's path as a string (latin1 when every path is ASCII: the same string, decoded faster). */
export function pathOf(entries: IndexEntries, i: number, ascii: boolean): string {
  return entries.paths.toString(ascii ? 'latin1' : 'utf8', entries.pathStart[i] as number, pathEnd(entries, i));
}

/** Entry i's object id in hex. */
export function oidHexOf(entries: IndexEntries, i: number): string {
  return entries.oids.toString('hex', i * entries.oidBytes, (i + 1) * entries.oidBytes);
}

/** The first entry whose path sorts at or after `key` (bytewise, as the index is ordered). */
export function lowerBound(entries: IndexEntries, key: Buffer, from = 0, to = entries.count): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries.paths.compare(key, 0, key.length, entries.pathStart[mid] as number, pathEnd(entries, mid)) < 0)
      lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The runs of entries at or under `prefix`: the path itself, and the folder's one contiguous run. */
export function entryRangesAtOrUnder(entries: IndexEntries, prefix: string): IndexRange[] {
  if (prefix === '.') return entries.count === 0 ? [] : [[0, entries.count]];
  const out: IndexRange[] = [];
  const key = Buffer.from(prefix);
  const exact = lowerBound(entries, key);
  if (exact < entries.count) {
    if (samePathAs(entries, exact, key)) {
      let last = exact + 1; // conflict stages repeat the path
      while (last < entries.count && samePathAs(entries, last, key)) last++;
      out.push([exact, last]);
    }
  }
  const from = lowerBound(entries, Buffer.from(`${prefix}/`), exact);
  const to = lowerBound(entries, Buffer.from(`${prefix}0`), from); // '0' follows '/'
  if (to > from) out.push([from, to]);
  return out;
}

/** Sorted, merged runs of entries at or under any of the prefixes. */
export function entryRangesUnder(entries: IndexEntries, prefixes: readonly string[]): [number, number][] {
  return mergeRanges(prefixes.flatMap((p) => entryRangesAtOrUnder(entries, p)));
}

/** Whether entry i's path is exactly `path`. */
export const samePathAs = (entries: IndexEntries, i: number, path: Buffer): boolean =>
  entries.paths.compare(path, 0, path.length, entries.pathStart[i] as number, pathEnd(entries, i)) === 0;

/** The entry holding exactly this path (its first stage), or -1. */
export function indexOfEntry(entries: IndexEntries, path: Buffer): number {
  const i = lowerBound(entries, path);
  return i < entries.count && samePathAs(entries, i, path) ? i : -1;
}
