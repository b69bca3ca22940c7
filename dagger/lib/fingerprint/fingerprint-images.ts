import { createHash } from 'node:crypto';
import type { Catalogue, ImageEntry } from '../catalogue/catalogue.ts';
import { encodeHeader, FileLineHasher, fileLine, sha256Hex } from './encoding.ts';
import { excludeMatcher } from './exclude-matcher.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { checkEntryPath } from './check-entry-path.ts';
import { indexOfPath, rangesUnder } from './sorted-paths.ts';
import { openResultCache } from './result-cache.ts';
import type { CachedFingerprint } from './result-cache.ts';
import type { HashProgress, SourceEntry, TreeSource } from './tree-source.ts';

export interface ImageFingerprint {
  readonly name: string;
  readonly fingerprint: string;
  readonly files: number;
  /** The whole `fingerprint/v1` text (`--explain`); present when asked for with `encodings`. */
  readonly encoding?: string;
}

export interface FingerprintOptions {
  /** Catalogue names to fingerprint; all when absent. */
  readonly images?: readonly string[];
  readonly progress?: HashProgress;
  /** Also return each image's encoding text; always computes, never answers from the result cache. */
  readonly encodings?: boolean;
}

/** Indices into bytewise-sorted `entries` of one image's file set, ascending. */
export function imageFileIndices(
  image: ImageEntry,
  entries: readonly SourceEntry[],
  excludedAt: (index: number) => boolean,
): number[] {
  const dockerfile = indexOfPath(entries, image.dockerfile);
  const picked: number[] = [];
  let dockerfilePending = dockerfile >= 0;
  for (const [start, end] of rangesUnder(entries, image.inputs)) {
    for (let i = start; i < end; i++) {
      if (dockerfilePending && dockerfile < i) {
        picked.push(dockerfile);
        dockerfilePending = false;
      }
      if (i === dockerfile) dockerfilePending = false;
      if (i === dockerfile || !excludedAt(i)) picked.push(i);
    }
  }
  if (dockerfilePending) picked.push(dockerfile);
  return picked;
}

/**
 * The file set of one image: under an input and not excluded, plus its Dockerfile, which is never
 * excluded. `entries` must be sorted bytewise (as `TreeSource.list` returns them); so is the result.
 */
export function imageFileSet(
  image: ImageEntry,
  entries: readonly SourceEntry[],
  excluded: (path: string) => boolean,
): SourceEntry[] {
  return imageFileIndices(image, entries, (i) => excluded(entries[i]?.path ?? '')).map(
    (i) => entries[i] as SourceEntry,
  );
}

export function selectImages(catalogue: Catalogue, names: readonly string[] | undefined): ImageEntry[] {
  if (names === undefined || names.length === 0) return [...catalogue.images];
  return names.map((name) => {
    const entry = catalogue.images.find((image) => image.name === name);
    if (entry === undefined) {
      throw new FingerprintError(
        'unknown-image',
        `Cannot fingerprint image "${name}": ${catalogue.file} has no such entry`,
        {
          details: { image: name, known: catalogue.images.map((image) => image.name) },
        },
      );
    }
    return entry;
  });
}

const pathsOf = (images: readonly ImageEntry[]) => [
  ...new Set(images.flatMap((image) => [...image.inputs, image.dockerfile])),
];

/**
 * Answers each image from the result cache when its content key is known (a commit's tree, or the clean index
 * records under its paths), so a change to one service leaves the others' fingerprints cached; lists the union
 * of the other images' inputs once, hashes each needed file once, then encodes per image.
 */
export async function fingerprintImages(
  source: TreeSource,
  catalogue: Catalogue,
  options: FingerprintOptions = {},
): Promise<ImageFingerprint[]> {
  const images = selectImages(catalogue, options.images);
  const quickOf = (image: ImageEntry) => (options.encodings ? undefined : source.quickContentKey?.(pathsOf([image])));
  const keyOf = (image: ImageEntry) => (options.encodings ? undefined : source.contentKey?.(pathsOf([image])));
  // The quick keys first: when they answer every image, the content keys (which list the index) are never built.
  const quick = images.map(quickOf);
  let cache = quick.some((key) => key !== undefined) ? await openResultCache(source.root) : undefined;
  const cached = images.map((image, k) => {
    const key = quick[k];
    return key === undefined ? undefined : cache?.get(key, image);
  });
  // A save under an image: its lines from the last run against this index file, the changed files hashed again.
  const unanswered = images.filter((_, k) => cached[k] === undefined);
  if (unanswered.length > 0 && !options.encodings && source.changedBytesUnder !== undefined) {
    const { patchSavedLines } = await import('./patch-saved-lines.ts');
    const patched = await patchSavedLines(source, unanswered, (image) => pathsOf([image]));
    for (const [j, image] of unanswered.entries()) cached[images.indexOf(image)] = patched[j];
  }
  const keys = await Promise.all(images.map((image, k) => (cached[k] === undefined ? keyOf(image) : undefined)));
  if (cache === undefined && keys.some((key) => key !== undefined)) cache = await openResultCache(source.root);
  images.forEach((image, k) => {
    const key = keys[k];
    if (cached[k] === undefined && key !== undefined) cached[k] = cache?.get(key, image);
  });
  const missing = images.filter((_, k) => cached[k] === undefined);
  const computed =
    missing.length === 0 ? [] : await computeFingerprints(source, catalogue, missing, pathsOf(missing), options);
  // Hashing may have found files that changed after git looked: then a key no longer names the content.
  let remembered = false;
  const byImage = new Map(missing.map((image, k) => [image, computed[k]]));
  for (const [k, image] of images.entries()) {
    const key = keys[k];
    const result = byImage.get(image) ?? cached[k];
    if (cache === undefined || result === undefined) continue;
    const value = { fingerprint: result.fingerprint, files: result.files };
    // Computed: remembered under its content key, once hashing proved the key still names the content.
    const computedHere = byImage.has(image);
    const proven = computedHere && key !== undefined && (await keyOf(image)) === key;
    if (proven) {
      cache.set(key, image, value);
      remembered = true;
    }
    // Computed or answered by the content key: the quick key (the same index, checked again) answers next time.
    const quickKey = quick[k];
    if (quickKey !== undefined && (computedHere ? proven : key !== undefined) && quickOf(image) === quickKey) {
      cache.set(quickKey, image, value);
      remembered = true;
    }
  }
  if (remembered) await cache?.save().catch(() => {}); // an unwritable cache only costs time
  const byName = new Map(computed.map((r) => [r.name, r]));
  const results = images.map(
    (image, k) => byName.get(image.name) ?? { name: image.name, ...(cached[k] as CachedFingerprint) },
  );
  return options.encodings ? results : results.map(({ encoding: _, ...rest }) => rest);
}

async function computeFingerprints(
  source: TreeSource,
  catalogue: Catalogue,
  images: readonly ImageEntry[],
  prefixes: readonly string[],
  options: FingerprintOptions,
): Promise<ImageFingerprint[]> {
  const entries = await source.list(prefixes);
  // Each path is tested against one exclude list once, however many images share the list.
  const verdicts = new Map<string, (i: number) => boolean>();
  const excludedAtFor = (globs: readonly string[]) => {
    const key = JSON.stringify(globs);
    let excludedAt = verdicts.get(key);
    if (excludedAt === undefined) {
      const matcher = excludeMatcher(globs);
      const verdict = new Uint8Array(entries.length); // 0 unknown, 1 kept, 2 excluded
      excludedAt = (i: number) => {
        if (verdict[i] === 0) verdict[i] = matcher(entries[i]?.path ?? '') ? 2 : 1;
        return verdict[i] === 2;
      };
      verdicts.set(key, excludedAt);
    }
    return excludedAt;
  };
  const sets = images.map((image) => {
    if (indexOfPath(entries, image.dockerfile) < 0) {
      throw new FingerprintError(
        'missing-dockerfile',
        `Cannot fingerprint image "${image.name}": Dockerfile "${image.dockerfile}" is not in ${source.kind === 'git' ? `commit ${source.id}` : 'the working tree'}`,
        {
          details: { image: image.name, dockerfile: image.dockerfile, source: source.id },
        },
      );
    }
    return imageFileIndices(image, entries, excludedAtFor(image.exclude));
  });
  const wanted = new Uint8Array(entries.length);
  for (const set of sets) for (const i of set) wanted[i] = 1;
  const needed: number[] = [];
  wanted.forEach((flag, i) => {
    if (flag === 1) needed.push(i);
  });
  const neededEntries = needed.map((i) => entries[i] as SourceEntry);
  for (const entry of neededEntries) checkEntryPath(entry.path);
  const hashes = await source.hash(neededEntries, options.progress);
  const hashAt = new Int32Array(entries.length); // entry index -> its hash's index
  needed.forEach((i, k) => {
    hashAt[i] = k;
  });
  const shaOf = (i: number) => hashes[hashAt[i] ?? 0] ?? '';
  await saveLines(source, images, sets, entries, shaOf);
  return images.map((image, k) => {
    const set = sets[k] ?? [];
    if (options.encodings) {
      const line = (i: number) => {
        const { path, mode } = entries[i] as SourceEntry;
        return fileLine({ path, mode, sha256: shaOf(i) });
      };
      const encoding = encodeHeader(image) + set.map(line).join('');
      return { name: image.name, fingerprint: sha256Hex(encoding), files: set.length, encoding };
    }
    // Streamed through one buffer: the same bytes, without a string per file line or a text per image in memory.
    const lines = new FileLineHasher(createHash('sha256').update(encodeHeader(image)));
    for (const i of set) {
      const entry = entries[i] as SourceEntry;
      lines.add(entry.mode, shaOf(i), entry.path);
    }
    return { name: image.name, fingerprint: lines.end().digest('hex'), files: set.length };
  });
}

/**
 * The lines of each image a save changed, for the next save under it (saved-lines.ts): a clean image is answered by
 * its quick key instead, and a cold run writes none. Asked after hashing, which may find git wrong.
 */
async function saveLines(
  source: TreeSource,
  images: readonly ImageEntry[],
  sets: readonly (readonly number[])[],
  entries: readonly SourceEntry[],
  shaOf: (i: number) => string,
): Promise<void> {
  const at = images.map((image) => {
    const now = source.changedBytesUnder?.(pathsOf([image]));
    return now !== undefined && now.changed.length > 0 ? now : undefined;
  });
  if (at.every((a) => a === undefined)) return;
  const { writeSavedLines } = await import('./saved-lines.ts');
  await Promise.all(
    images.map(async (image, k) => {
      const now = at[k];
      if (now === undefined) return;
      const line = (i: number) => {
        const { path, mode } = entries[i] as SourceEntry;
        return fileLine({ path, mode, sha256: shaOf(i) });
      };
      const lines = (sets[k] ?? []).map(line).join('');
      await writeSavedLines(source.root, image, now, lines).catch(() => {}); // unwritable: the next save computes
    }),
  );
}
