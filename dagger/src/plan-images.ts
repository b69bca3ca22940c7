// The library's view of an exported source: its catalogue, the fingerprints of the asked images, its HEAD.
import { gitPort } from '../lib/ports/git.ts';
import type { Catalogue } from '../lib/catalogue/catalogue.ts';
import { fingerprintImages, loadCatalogue, openSource } from '../lib/fingerprint/index.ts';
import type { PlannedImage } from './image-build.ts';
import { entryOf } from './image-build.ts';

export interface SourcePlan {
  readonly catalogue: Catalogue;
  readonly images: readonly PlannedImage[];
}

async function headCommit(folder: string): Promise<string> {
  const result = await gitPort(folder).run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return result.code === 0 ? result.stdout.toString('utf8').trim() : '';
}

/** Fingerprints `names` (all when undefined) of the working tree in `folder`; an unknown name fails before hashing. */
export async function planImages(folder: string, names: readonly string[] | undefined): Promise<SourcePlan> {
  const source = await openSource(folder, undefined);
  const catalogue = await loadCatalogue(source);
  const entries = names === undefined ? catalogue.images : names.map((name) => entryOf(catalogue, name));
  const [results, commit] = await Promise.all([
    fingerprintImages(source, catalogue, { images: entries.map((e) => e.name) }),
    headCommit(folder),
  ]);
  const byName = new Map(results.map((r) => [r.name, r.fingerprint]));
  return { catalogue, images: entries.map((entry) => ({ entry, fingerprint: byName.get(entry.name) ?? '', commit })) };
}

/** The plan of one image, by catalogue name. */
export async function planImage(folder: string, name: string): Promise<PlannedImage> {
  const [planned] = (await planImages(folder, [name])).images;
  if (planned === undefined) throw new Error(`planImages returned no plan for "${name}"`); // unreachable: entryOf throws first
  return planned;
}
