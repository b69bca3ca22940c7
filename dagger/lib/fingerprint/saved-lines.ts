// One image's file lines as last computed against an index file: a save under the image then hashes again only
// the files git status reports changed, and parses no index (docs/decisions.md, "Saved lines").
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { readChecksummed, writeChecksummed } from './checksummed-file.ts';
import { imageContentKey } from './result-cache.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';
import type { ChangedBytes } from './tree-source.ts';

const FORMAT = 'pharos-fingerprint-lines/1';
const MODES = new Set(['100644', '100755', '120000']);
const SHA256 = /^[0-9a-f]{64}$/;

/** An image's file lines, in encoding order, and the paths whose bytes differed from the index when they were taken. */
export interface SavedLines {
  readonly changed: readonly string[];
  readonly modes: readonly string[];
  readonly sha256: readonly string[];
  readonly paths: readonly string[];
}

// One file per image (by name), holding the key it was taken under: a newer index replaces it, nothing piles up.
const fileOf = (root: string, image: ImageEntry) =>
  join(root, LOCAL_DIR, 'fingerprint', 'lines', `${createHash('sha256').update(image.name).digest('hex')}.json`);

/** The lines saved for `image` under `at.key` (the image's definition included), or undefined. */
export async function readSavedLines(
  root: string,
  image: ImageEntry,
  at: ChangedBytes,
): Promise<SavedLines | undefined> {
  const body = await readChecksummed(fileOf(root, image), FORMAT);
  if (body === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return undefined;
  }
  const { key, changed, lines } = (data ?? {}) as { key?: unknown; changed?: unknown; lines?: unknown };
  if (key !== imageContentKey(at.key, image) || !isStrings(changed) || !Array.isArray(lines)) return undefined;
  const modes: string[] = [];
  const sha256: string[] = [];
  const paths: string[] = [];
  for (const line of lines as unknown[]) {
    if (!Array.isArray(line) || line.length !== 3) return undefined;
    const [mode, sha, path] = line as unknown[];
    if (typeof mode !== 'string' || !MODES.has(mode) || typeof sha !== 'string' || !SHA256.test(sha)) return undefined;
    if (typeof path !== 'string' || path === '') return undefined;
    modes.push(mode);
    sha256.push(sha);
    paths.push(path);
  }
  return { changed, modes, sha256, paths };
}

/** Saves `lines` for `image` under `at`; a cache that cannot be written only costs the next save its time. */
export async function writeSavedLines(
  root: string,
  image: ImageEntry,
  at: ChangedBytes,
  lines: Omit<SavedLines, 'changed'>,
): Promise<void> {
  const rows = lines.paths.map((path, i) => [lines.modes[i], lines.sha256[i], path]);
  await ensureLocalDir(root, 'fingerprint', 'lines');
  const body = JSON.stringify({ key: imageContentKey(at.key, image), changed: at.changed, lines: rows });
  await writeChecksummed(fileOf(root, image), FORMAT, body);
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
