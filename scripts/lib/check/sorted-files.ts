import { compareBytewise } from '../fingerprint/compare-bytewise.ts';
import type { SourceEntry } from '../fingerprint/tree-source.ts';

function lowerBound(files: readonly SourceEntry[], key: string): number {
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytewise(files[mid]?.path ?? '', key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The listed files at or under `path` (`.` is all), by binary search over a bytewise-sorted list. */
export function filesUnder(files: readonly SourceEntry[], path: string): readonly SourceEntry[] {
  if (path === '.') return files;
  const exact = lowerBound(files, path);
  const out = files[exact]?.path === path ? [files[exact] as SourceEntry] : [];
  // "p/" .. "p0": '0' is the code point after '/', so this is exactly the files below p
  return out.concat(files.slice(lowerBound(files, `${path}/`), lowerBound(files, `${path}0`)));
}

/** Sorts bytewise, as TreeSource.list promises; cheap when already sorted. */
export function sortedFiles(files: readonly SourceEntry[]): SourceEntry[] {
  return [...files].sort((a, b) => compareBytewise(a.path, b.path));
}
