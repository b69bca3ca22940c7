// One image's file lines as last computed against an index file: a save under the image then hashes again only
// the files git status reports changed, and parses no index (docs/decisions.md, "Saved lines").
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { readSealed, writeSealed } from './checksummed-file.ts';
import { imageContentKey } from './result-cache.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';
import type { ChangedBytes } from './tree-source.ts';

// Binary: magic, the key, a newline, the changed paths as JSON, a newline, then the file lines exactly as the
// encoding has them (`file\t<mode>\t<sha256>\t<path>\n`, paths bytewise), then a SHA-256 of all before it.
const MAGIC = Buffer.from('pharos-fingerprint-lines/1\n');
const NEWLINE = 10;

/** An image's file lines, as the encoding has them, and the paths whose bytes differed from the index then. */
export interface SavedLines {
  readonly changed: readonly string[];
  /** Every `file` line of the image's encoding, in order: what its hash takes after the header. */
  readonly lines: Buffer;
}

// One file per image (by name), holding the key it was saved under: a newer index replaces it, nothing piles up.
const fileOf = (root: string, image: ImageEntry) =>
  join(root, LOCAL_DIR, 'fingerprint', 'lines', createHash('sha256').update(image.name).digest('hex'));

/** The lines saved for `image` under `at.key` (the image's definition included), or undefined. */
export async function readSavedLines(
  root: string,
  image: ImageEntry,
  at: ChangedBytes,
): Promise<SavedLines | undefined> {
  const body = await readSealed(fileOf(root, image), MAGIC);
  if (body === undefined) return undefined;
  const keyEnd = body.indexOf(NEWLINE);
  const changedEnd = keyEnd < 0 ? -1 : body.indexOf(NEWLINE, keyEnd + 1);
  if (changedEnd < 0 || body.toString('latin1', 0, keyEnd) !== imageContentKey(at.key, image)) return undefined;
  let changed: unknown;
  try {
    changed = JSON.parse(body.toString('utf8', keyEnd + 1, changedEnd));
  } catch {
    return undefined;
  }
  const lines = body.subarray(changedEnd + 1);
  if (!isStrings(changed) || (lines.length > 0 && lines[lines.length - 1] !== NEWLINE)) return undefined;
  return { changed, lines };
}

/** Saves the lines of `image` under `at`; a cache that cannot be written only costs the next save its time. */
export async function writeSavedLines(root: string, image: ImageEntry, at: ChangedBytes, lines: string): Promise<void> {
  await ensureLocalDir(root, 'fingerprint', 'lines');
  const head = `${imageContentKey(at.key, image)}\n${JSON.stringify(at.changed)}\n`;
  await writeSealed(fileOf(root, image), MAGIC, [Buffer.from(head), Buffer.from(lines)]);
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
