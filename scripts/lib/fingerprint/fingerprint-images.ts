import type { Catalogue, ImageEntry } from '../catalogue/catalogue.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { encodeImage, sha256Hex } from './encoding.ts';
import type { FileLine } from './encoding.ts';
import { excludeMatcher } from './exclude-matcher.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { checkEntryPath } from './check-entry-path.ts';
import type { HashProgress, SourceEntry, TreeSource } from './tree-source.ts';

export interface ImageFingerprint {
  readonly name: string;
  readonly fingerprint: string;
  readonly files: number;
  /** The whole `fingerprint/v1` text, for `--explain`. */
  readonly encoding: string;
}

export interface FingerprintOptions {
  /** Catalogue names to fingerprint; all when absent. */
  readonly images?: readonly string[];
  readonly progress?: HashProgress;
}

/** The file set of one image: under an input and not excluded, plus its Dockerfile, which is never excluded. */
export function imageFileSet(image: ImageEntry, entries: readonly SourceEntry[], excluded: (path: string) => boolean): SourceEntry[] {
  return entries.filter(
    (e) => e.path === image.dockerfile || (image.inputs.some((input) => isAtOrUnder(e.path, input)) && !excluded(e.path)),
  );
}

export function selectImages(catalogue: Catalogue, names: readonly string[] | undefined): ImageEntry[] {
  if (names === undefined || names.length === 0) return [...catalogue.images];
  return names.map((name) => {
    const entry = catalogue.images.find((image) => image.name === name);
    if (entry === undefined) {
      throw new FingerprintError('unknown-image', `Cannot fingerprint image "${name}": ${catalogue.file} has no such entry`, {
        details: { image: name, known: catalogue.images.map((image) => image.name) },
      });
    }
    return entry;
  });
}

/** Lists the union of every selected image's inputs once, hashes each needed file once, then encodes per image. */
export async function fingerprintImages(source: TreeSource, catalogue: Catalogue, options: FingerprintOptions = {}): Promise<ImageFingerprint[]> {
  const images = selectImages(catalogue, options.images);
  const prefixes = [...new Set(images.flatMap((image) => [...image.inputs, image.dockerfile]))];
  const entries = await source.list(prefixes);
  const excluded = excludeMatcher(catalogue.exclude);
  const sets = images.map((image) => {
    const dockerfile = entries.find((e) => e.path === image.dockerfile);
    if (dockerfile === undefined) {
      throw new FingerprintError('missing-dockerfile', `Cannot fingerprint image "${image.name}": Dockerfile "${image.dockerfile}" is not in ${source.kind === 'git' ? `commit ${source.id}` : 'the working tree'}`, {
        details: { image: image.name, dockerfile: image.dockerfile, source: source.id },
      });
    }
    return imageFileSet(image, entries, excluded);
  });
  const needed = [...new Set(sets.flat())];
  for (const entry of needed) checkEntryPath(entry.path);
  const hashes = await source.hash(needed, options.progress);
  const hashOf = new Map(needed.map((entry, i) => [entry, hashes[i] ?? '']));
  return images.map((image, k) => {
    const files: FileLine[] = (sets[k] ?? []).map((e) => ({ path: e.path, mode: e.mode, sha256: hashOf.get(e) ?? '' }));
    const encoding = encodeImage(image, files);
    return { name: image.name, fingerprint: sha256Hex(encoding), files: files.length, encoding };
  });
}
