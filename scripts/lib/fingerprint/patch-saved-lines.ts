import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { encodeHeader, FileLineHasher } from './encoding.ts';
import type { FileMode } from './file-mode.ts';
import type { CachedFingerprint } from './result-cache.ts';
import { readSavedLines } from './saved-lines.ts';
import type { SavedLines } from './saved-lines.ts';
import type { ChangedBytes, SourceEntry, TreeSource } from './tree-source.ts';

/**
 * Answers a save under images from their saved lines (saved-lines.ts): the files git reports changed are hashed
 * again, each once however many images hold it, and every other line is the one saved against the same index file.
 * Undefined for an image without usable lines: one that differed from the index then and no longer does needs the
 * index's bytes for that path, so it is computed in full.
 */
export async function patchSavedLines(
  source: TreeSource,
  images: readonly ImageEntry[],
  prefixesOf: (image: ImageEntry) => readonly string[],
): Promise<(CachedFingerprint | undefined)[]> {
  const at = images.map((image) => source.changedBytesUnder?.(prefixesOf(image)));
  const saved = await Promise.all(
    images.map(async (image, k) => {
      const now = at[k];
      if (now === undefined) return undefined;
      const lines = await readSavedLines(source.root, image, now);
      return lines !== undefined && lines.changed.every((path) => now.changed.includes(path)) ? lines : undefined;
    }),
  );
  const entries = new Map<string, SourceEntry>();
  const hits = saved.map((lines, k) =>
    lines === undefined ? [] : changedLines(lines, at[k] as ChangedBytes, entries),
  );
  const list = [...entries.values()];
  const hashes = list.length === 0 ? [] : await source.hash(list);
  const hashOf = new Map(list.map((entry, i) => [entry.path, hashes[i] ?? '']));
  return saved.map((lines, k) => {
    if (lines === undefined) return undefined;
    const image = images[k] as ImageEntry;
    const sha256 = [...lines.sha256];
    for (const i of hits[k] ?? []) sha256[i] = hashOf.get(lines.paths[i] as string) ?? '';
    const hasher = new FileLineHasher(createHash('sha256').update(encodeHeader(image)));
    lines.paths.forEach((path, i) => hasher.add(lines.modes[i] as string, sha256[i] as string, path));
    return { fingerprint: hasher.end().digest('hex'), files: lines.paths.length };
  });
}

/** The line numbers of the changed paths among the lines; each such file goes into `entries` to be hashed. */
function changedLines(lines: SavedLines, at: ChangedBytes, entries: Map<string, SourceEntry>): number[] {
  const changed = new Set(at.changed);
  const found: number[] = [];
  lines.paths.forEach((path, i) => {
    if (!changed.has(path)) return;
    found.push(i);
    if (!entries.has(path)) entries.set(path, { path, mode: lines.modes[i] as FileMode });
  });
  return found;
}
