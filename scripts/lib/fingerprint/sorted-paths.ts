import { compareBytewise } from '../catalogue/compare-bytewise.ts';

interface HasPath {
  readonly path: string;
}

/** A half-open run `[start, end)` of indices. */
export type IndexRange = readonly [number, number];

function lowerBound(entries: readonly HasPath[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytewise(entries[mid]?.path ?? '', key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The runs of a bytewise-sorted list at or under `prefix`: the path itself, and the folder's contiguous run. */
export function rangesAtOrUnder(entries: readonly HasPath[], prefix: string): IndexRange[] {
  if (prefix === '.') return [[0, entries.length]];
  const out: IndexRange[] = [];
  const exact = lowerBound(entries, prefix);
  if (entries[exact]?.path === prefix) out.push([exact, exact + 1]);
  const folder = `${prefix}/`;
  const start = lowerBound(entries, folder);
  // Every path under the folder sorts before `prefix` + the character after '/'.
  const end = lowerBound(entries, `${prefix}0`);
  if (end > start) out.push([start, end]);
  return out;
}

/** Sorted, merged runs covering every prefix: each index at most once, in order, with no per-item sort. */
export function rangesUnder(entries: readonly HasPath[], prefixes: readonly string[]): IndexRange[] {
  return mergeRanges(prefixes.flatMap((p) => rangesAtOrUnder(entries, p)));
}

/** Half-open runs sorted by start, overlapping or touching ones joined: each index at most once, in order. */
export function mergeRanges(ranges: readonly IndexRange[]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

export function indicesAtOrUnder(entries: readonly HasPath[], prefix: string): number[] {
  const out: number[] = [];
  for (const [start, end] of rangesAtOrUnder(entries, prefix)) for (let i = start; i < end; i++) out.push(i);
  return out;
}

export function indexOfPath(entries: readonly HasPath[], path: string): number {
  const i = lowerBound(entries, path);
  return entries[i]?.path === path ? i : -1;
}
