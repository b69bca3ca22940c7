import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { encodeHeader } from './encoding.ts';
import type { FileMode } from './file-mode.ts';
import type { CachedFingerprint } from './result-cache.ts';
import { readSavedLines } from './saved-lines.ts';
import type { SourceEntry, TreeSource } from './tree-source.ts';

const SHA_HEX = 64;
const TAB = 9;
const MODE_AT = 'file\t'.length;

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
  const saved = await Promise.all(
    images.map(async (image) => {
      const now = source.changedBytesUnder?.(prefixesOf(image));
      if (now === undefined) return undefined;
      const lines = await readSavedLines(source.root, image, now);
      if (lines === undefined || !lines.changed.every((path) => now.changed.includes(path))) return undefined;
      // A changed path is a line only if it is one of the image's files (an excluded one is not).
      const at = now.changed.map((path) => [path, lineOf(lines.lines, path)] as const).filter(([, line]) => line >= 0);
      return { lines: lines.lines, at }; // the lines read are this run's own: written over in place
    }),
  );
  const entries = new Map<string, SourceEntry>();
  for (const one of saved) {
    if (one === undefined) continue;
    for (const [path, at] of one.at) if (!entries.has(path)) entries.set(path, { path, mode: modeAt(one.lines, at) });
  }
  const list = [...entries.values()];
  const hashes = list.length === 0 ? [] : await source.hash(list);
  const hashOf = new Map(list.map((entry, i) => [entry.path, hashes[i] ?? '']));
  return saved.map((one, k) => {
    if (one === undefined) return undefined;
    // The mode is the same (status-records.ts `modified`): only the digest of each changed line is written over.
    for (const [path, at] of one.at) {
      const sha = hashOf.get(path) ?? '';
      if (sha.length !== SHA_HEX || shaAt(one.lines, at) + SHA_HEX >= one.lines.length) return undefined;
      one.lines.write(sha, shaAt(one.lines, at), 'latin1');
    }
    const hash = createHash('sha256')
      .update(encodeHeader(images[k] as ImageEntry))
      .update(one.lines);
    return { fingerprint: hash.digest('hex'), files: count(one.lines) };
  });
}

/** Where the line of `path` starts, or -1: paths hold no tab or newline, so `\t<path>\n` ends only its own line. */
function lineOf(lines: Buffer, path: string): number {
  const end = lines.indexOf(`\t${path}\n`, 0, 'utf8');
  if (end < 0) return -1;
  return lines.lastIndexOf(10, end) + 1; // the line starts after the previous newline (or at 0)
}

const modeAt = (lines: Buffer, at: number) =>
  lines.toString('latin1', at + MODE_AT, lines.indexOf(TAB, at + MODE_AT)) as FileMode;

const shaAt = (lines: Buffer, at: number) => lines.indexOf(TAB, at + MODE_AT) + 1;

function count(lines: Buffer): number {
  let n = 0;
  for (let at = lines.indexOf(10); at >= 0; at = lines.indexOf(10, at + 1)) n++;
  return n;
}
