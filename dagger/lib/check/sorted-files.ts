import { compareBytewise } from '../catalogue/compare-bytewise.ts';
import { rangesAtOrUnder } from '../fingerprint/sorted-paths.ts';
import type { SourceEntry } from '../fingerprint/tree-source.ts';

/** The listed files at or under `path` (`.` is all), by binary search over a bytewise-sorted list. */
export function filesUnder(files: readonly SourceEntry[], path: string): readonly SourceEntry[] {
  return rangesAtOrUnder(files, path).flatMap(([start, end]) => files.slice(start, end));
}

/** Sorts bytewise, as TreeSource.list promises; cheap when already sorted. */
export function sortedFiles(files: readonly SourceEntry[]): SourceEntry[] {
  return [...files].sort((a, b) => compareBytewise(a.path, b.path));
}

/** Whether anything is listed at or under `path`, without copying the run. */
export function hasFilesUnder(files: readonly SourceEntry[], path: string): boolean {
  return rangesAtOrUnder(files, path).some(([start, end]) => end > start);
}
