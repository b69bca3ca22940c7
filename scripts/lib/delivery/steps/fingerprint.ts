import { CATALOGUE_PATH } from '../../catalogue/catalogue.ts';
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { parseCatalogue } from '../../catalogue/parse-catalogue.ts';
import { fingerprintImages } from '../../fingerprint/fingerprint-images.ts';
import type { ImageFingerprint } from '../../fingerprint/fingerprint-images.ts';
import { openGitTreeSource, readGitBlob } from '../../fingerprint/git-tree-source.ts';
import { readReceipt } from '../../target/receipt.ts';
import type { DeliveryContext, DeliveryState, Step } from '../delivery-context.ts';
import { DeliveryError } from '../delivery-error.ts';

/**
 * Fingerprints every catalogue image from the commit's own tree. When the ConfigMap already records this commit
 * and the local receipt (the cache) agrees with it, the receipt's fingerprints are used: same commit, same inputs.
 */
export const fingerprint: Step = {
  name: 'fingerprint',
  async run(ctx, state) {
    const catalogue = state.catalogue ?? (await readCatalogueAt(ctx, state.commit));
    state.catalogue = catalogue;
    const cached = await cachedFingerprints(
      ctx,
      state,
      catalogue.images.map((image) => image.name),
    );
    const fingerprints =
      cached ?? (await fingerprintImages(await openGitTreeSource(ctx.checkout, state.commit), catalogue));
    state.fingerprints = fingerprints;
    return {
      summary: `${fingerprints.length} images fingerprinted${cached ? ' (from the receipt of this commit)' : ''}`,
      fields: { images: Object.fromEntries(fingerprints.map((f) => [f.name, f.fingerprint])) },
    };
  },
};

/** The commit's own catalogue, read with one `git cat-file`. */
async function readCatalogueAt(ctx: DeliveryContext, commit: string): Promise<Catalogue> {
  const bytes = await readGitBlob(ctx.git, `${commit}:./${CATALOGUE_PATH}`);
  if (bytes === undefined) {
    throw new DeliveryError(
      'plan-failed',
      `Cannot deliver ${commit.slice(0, 12)}: "${CATALOGUE_PATH}" is not in that commit`,
      { details: { commit } },
    );
  }
  return parseCatalogue(bytes.toString('utf8'), CATALOGUE_PATH);
}

async function cachedFingerprints(
  ctx: DeliveryContext,
  state: DeliveryState,
  names: readonly string[],
): Promise<ImageFingerprint[] | undefined> {
  const records = state.ownership?.records;
  if (records?.revision !== state.commit || records.images === undefined) return undefined;
  const receipt = await (state.prefetch?.receipt ?? readReceipt(ctx.paths.receipt)).catch(() => undefined);
  if (receipt?.commit !== state.commit) return undefined;
  const out: ImageFingerprint[] = [];
  for (const name of names) {
    const entry = receipt.images[name];
    if (entry === undefined || records.images[name] !== entry.reference) return undefined;
    out.push({ name, fingerprint: entry.fingerprint, files: 0 });
  }
  return Object.keys(receipt.images).length === names.length ? out : undefined;
}
