// Re-fingerprints only the images a save can move: a save in one service's folder hashes that service alone.
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { CATALOGUE_PATH } from '../../catalogue/catalogue.ts';
import { fingerprintImages } from '../../fingerprint/fingerprint-images.ts';
import { openWorktreeSource } from '../../fingerprint/worktree-source.ts';
import { imagesTouching } from './restart-decision.ts';

/** Fingerprints of the images the paths touch, from the working tree now. */
export async function fingerprintsAfterSave(
  checkout: string,
  catalogue: Catalogue,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const touched = imagesTouching(catalogue, paths, CATALOGUE_PATH);
  if (touched.length === 0) return new Map();
  const source = await openWorktreeSource(checkout);
  const prints = await fingerprintImages(source, catalogue, { images: touched.map((i) => i.name) });
  return new Map(prints.map((p) => [p.name, p.fingerprint]));
}
