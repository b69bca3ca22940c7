import { fingerprintImages } from '../../fingerprint/fingerprint-images.ts';
import type { ImageFingerprint } from '../../fingerprint/fingerprint-images.ts';
import { openGitTreeSource } from '../../fingerprint/git-tree-source.ts';
import { loadCatalogue } from '../../fingerprint/open-source.ts';
import { readOwnership } from '../../ownership/ownership-store.ts';
import { ownershipRef } from '../delivery-context.ts';
import type { DeliveryContext, DeliveryState, Step } from '../delivery-context.ts';
import { changedImages, planBuilds } from '../plan-builds.ts';

async function fingerprintCommit(
  ctx: DeliveryContext,
  commit: string,
  options: { images?: readonly string[]; encodings?: boolean } = {},
): Promise<{ fingerprints: ImageFingerprint[]; catalogue: Awaited<ReturnType<typeof loadCatalogue>> }> {
  const source = await openGitTreeSource(ctx.checkout, commit);
  const catalogue = await loadCatalogue(source);
  if (options.images !== undefined && options.images.length === 0) return { catalogue, fingerprints: [] };
  return { catalogue, fingerprints: await fingerprintImages(source, catalogue, options) };
}

/** The deployed revision's fingerprints: its tree, fetched from the in-cluster Git server when this checkout lacks it. */
async function deployedFingerprints(
  ctx: DeliveryContext,
  state: DeliveryState,
  revision: string | undefined,
): Promise<ReadonlyMap<string, ImageFingerprint> | undefined> {
  if (revision === undefined) return new Map();
  if (revision === state.commit) return new Map((state.fingerprints ?? []).map((f) => [f.name, f]));
  const present = await ctx.git.run(['cat-file', '-e', `${revision}^{commit}`]);
  if (present.code !== 0)
    await ctx.git.run(['fetch', '--quiet', ctx.profile.git.push, `refs/pharos/commits/${revision}`]);
  try {
    const { fingerprints } = await fingerprintCommit(ctx, revision);
    return new Map(fingerprints.map((f) => [f.name, f]));
  } catch {
    return undefined; // unreadable deployed tree: every image rebuilds, with that reason
  }
}

/** The encodings of the changed images at both commits, so the plan can say which file or arg changed. */
async function withEncodings(
  ctx: DeliveryContext,
  commit: string,
  fingerprints: readonly ImageFingerprint[],
  names: readonly string[],
): Promise<ImageFingerprint[]> {
  if (names.length === 0) return [...fingerprints];
  const explained = new Map(
    (await fingerprintCommit(ctx, commit, { images: names, encodings: true })).fingerprints.map((f) => [f.name, f]),
  );
  return fingerprints.map((f) => explained.get(f.name) ?? f);
}

/** Compares with the receipt in the ownership ConfigMap (the local receipt is only a cache). */
export const compare: Step = {
  name: 'compare',
  async run(ctx, state) {
    const snapshot = state.ownership ?? (await readOwnership(ctx.kube, ownershipRef(ctx)));
    state.ownership = snapshot;
    const { revision, images } = snapshot.records;
    let current = state.fingerprints ?? [];
    let deployed = await deployedFingerprints(ctx, state, revision);
    const changed = changedImages(current, deployed);
    if (changed.length > 0 && revision !== undefined && deployed !== undefined) {
      current = await withEncodings(ctx, state.commit, current, changed);
      deployed = new Map((await withEncodings(ctx, revision, [...deployed.values()], changed)).map((f) => [f.name, f]));
    }
    const plan = planBuilds(current, { revision, images: images ?? {}, fingerprints: deployed });
    state.plan = plan;
    const build = plan.filter((p) => p.build).map((p) => p.name);
    return {
      summary: build.length === 0 ? 'nothing to build' : `to build: ${build.join(', ')}`,
      fields: { build, deployed: revision },
    };
  },
};
