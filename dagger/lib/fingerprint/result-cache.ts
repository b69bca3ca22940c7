import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { readChecksummed, writeChecksummed } from './checksummed-file.ts';
import { ENCODING_VERSION } from './encoding.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

const FORMAT = 'pharos-fingerprint-results/1';
const KEEP = 512;
// Bumped when what a glob matches changes (2: a trailing `/**` matches inside a folder only).
const GLOB_RULES = 2;

export interface CachedFingerprint {
  readonly fingerprint: string;
  readonly files: number;
}

/**
 * Fingerprints remembered by (content key, image definition with its exclude rule). A content key names
 * content exactly (a tree id, or the clean index records under the image's paths), so an entry can never
 * be stale, only unused.
 */
export interface ResultCache {
  get(contentKey: string, image: ImageEntry): CachedFingerprint | undefined;
  set(contentKey: string, image: ImageEntry, value: CachedFingerprint): void;
  save(): Promise<void>;
}

function isEntry(value: unknown): value is CachedFingerprint {
  const v = value as CachedFingerprint;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.fingerprint === 'string' &&
    /^[0-9a-f]{64}$/.test(v.fingerprint) &&
    Number.isInteger(v.files)
  );
}

/** One key of a content key and an image's definition with its exclude rule (and the rules of this version). */
export const imageContentKey = (contentKey: string, image: ImageEntry): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        ENCODING_VERSION,
        GLOB_RULES,
        contentKey,
        image.exclude,
        image.platform,
        image.context,
        image.dockerfile,
        image.target ?? '',
        image.args,
        image.inputs,
      ]),
    )
    .digest('hex');

export async function openResultCache(root: string): Promise<ResultCache> {
  const file = join(root, LOCAL_DIR, 'fingerprint', 'results.json');
  let entries = new Map<string, CachedFingerprint>();
  const body = await readChecksummed(file, FORMAT);
  try {
    const data: unknown = body === undefined ? {} : JSON.parse(body);
    for (const [key, value] of Object.entries(data as object)) if (isEntry(value)) entries.set(key, value);
  } catch {
    entries = new Map();
  }
  let dirty = false;
  return {
    get: (contentKey, image) => entries.get(imageContentKey(contentKey, image)),
    set: (contentKey, image, value) => {
      const key = imageContentKey(contentKey, image);
      entries.delete(key); // re-insert: the newest entries are kept
      entries.set(key, value);
      dirty = true;
    },
    save: async () => {
      if (!dirty) return;
      const kept = [...entries].slice(-KEEP);
      await ensureLocalDir(root, 'fingerprint');
      await writeChecksummed(file, FORMAT, JSON.stringify(Object.fromEntries(kept)));
      dirty = false;
    },
  };
}
