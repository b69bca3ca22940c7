import { hostname } from 'node:os';
import { gitPrefix, openGitTreeSource, readGitBlob } from '../fingerprint/git-tree-source.ts';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { parseCatalogue } from '../catalogue/parse-catalogue.ts';
import { fingerprintImages } from '../fingerprint/fingerprint-images.ts';
import { loadCatalogue } from '../fingerprint/open-source.ts';
import type { ImageFingerprint } from '../fingerprint/fingerprint-images.ts';
import { isConflict } from '../ports/kube-error.ts';
import { DevboxError } from './devbox-error.ts';
import { decideClaim } from '../ownership/decide-claim.ts';
import { sameHolder } from '../ownership/holder.ts';
import { rfc3339 } from '../ownership/record-time.ts';
import type { DeliveryContext, DeliveryState, Step } from './delivery-context.ts';
import { cleanupTarget } from '../ownership/cleanup-target.ts';
import type { ImageMap } from '../ownership/ownership-records.ts';
import { readOwnership, writeOwnership } from '../ownership/ownership-store.ts';
import type { OwnershipSnapshot } from '../ownership/ownership-store.ts';
import { changedImages, planBuilds } from './plan-builds.ts';
import { readReceipt, writeReceipt } from '../target/receipt.ts';
import { rootInputs, rootInputsPatch } from './root-inputs.ts';
import { runBuildJob } from './run-build-job.ts';
import { BUILD_BRANCH } from '../target/target-profile.ts';
import { runPool } from './run-pool.ts';
import { syncApplications } from '../argocd/sync-applications.ts';
import { SyncError } from '../argocd/sync-error.ts';

export const defaultWorkstation = (): string => hostname();

/** The child Applications of the root: those the catalogue's images belong to, sorted. */
const applicationsOf = (state: DeliveryState): string[] =>
  [
    ...new Set((state.catalogue?.images ?? []).flatMap((i) => (i.application === undefined ? [] : [i.application]))),
  ].sort();

/** The Applications whose images this delivery built: Argo CD syncs them once more so their hooks run the new digests. */
const builtApplications = (state: DeliveryState): string[] => {
  const built = new Set((state.plan ?? []).filter((p) => p.build).map((p) => p.name));
  return [
    ...new Set(
      (state.catalogue?.images ?? []).flatMap((i) =>
        built.has(i.name) && i.application !== undefined ? [i.application] : [],
      ),
    ),
  ].sort();
};

const ownershipRef = (ctx: DeliveryContext) => ({
  namespace: ctx.profile.namespaces.argocd,
  name: ctx.profile.ownership,
});

/**
 * Refuses while a lease or another delivery holds the target; else writes our `delivery` record (one CAS, re-decided
 * on 409). A lease that expired since the first clean-up is cleaned up the same way first (what it replaced, its
 * windows, its record), then the claim is decided again.
 */
export const claim: Step = {
  name: 'claim',
  async run(ctx, state) {
    const cleared: string[] = [];
    let next = state.firstRead;
    for (let attempt = 1; ; attempt++) {
      const snapshot = await (next ?? readOwnership(ctx.kube, ownershipRef(ctx)));
      next = undefined;
      const decision = decideClaim(
        snapshot.records,
        ctx.holder,
        state.commit,
        ctx.clock.now(),
        ctx.profile.delivery.ttl,
      );
      if (decision.kind === 'refuse') {
        throw new DevboxError(
          decision.code,
          `Cannot deliver ${state.commit.slice(0, 12)} to target "${ctx.profile.name}": ${decision.reason}`,
          { details: { target: ctx.profile.name } },
        );
      }
      if (snapshot.records.lease !== undefined && attempt < 5) {
        const cleaned = await cleanupTarget({ kube: ctx.kube, profile: ctx.profile, clock: ctx.clock, log: ctx.log });
        cleared.push(...cleaned.done);
        next = Promise.resolve(cleaned.snapshot);
        continue;
      }
      try {
        state.ownership = await writeOwnership(ctx.kube, snapshot, decision.changes);
      } catch (error) {
        if (isConflict(error) && attempt < 5) continue; // someone wrote first: read again and re-decide
        throw error;
      }
      state.claimed = true;
      const removed = [...cleared, ...decision.removed];
      return {
        summary: `delivery record written${removed.length > 0 ? `; removed ${removed.join(', ')}` : ''}`,
        fields: { removed },
      };
    }
  },
};

async function pushRefs(ctx: DeliveryContext, commit: string, refs: readonly string[]): Promise<void> {
  const remote = ctx.profile.git.push;
  const result = await ctx.git.run(['push', '--quiet', '--force', remote, ...refs.map((ref) => `${commit}:${ref}`)]);
  if (result.code !== 0) {
    throw new DevboxError(
      'push-failed',
      `Cannot push ${commit.slice(0, 12)} to "${remote}": ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
      { details: { remote } },
    );
  }
}

/**
 * Pushes the commit to the in-cluster Git server: `refs/pharos/commits/<commit>` (earlier receipts stay fetchable)
 * and the build branch. The delivery branch moves only once the root targets the commit (root-inputs): a root the
 * bootstrap left following that branch would otherwise sync the commit before its images are built and pinned.
 */
export const push: Step = {
  name: 'push',
  async run(ctx, state) {
    const names = [ctx.profile.root.application, ...applicationsOf(state)];
    state.applications = Promise.all(
      names.map((name) => ctx.kube.get('Application', ctx.profile.namespaces.argocd, name)),
    );
    state.applications.catch(() => {}); // the steps that use it read again on failure
    await pushRefs(ctx, state.commit, [`refs/heads/${BUILD_BRANCH}`, `refs/pharos/commits/${state.commit}`]);
    return { summary: `pushed to ${ctx.profile.git.push} ${BUILD_BRANCH}` };
  },
};

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
    throw new DevboxError(
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

/** One BuildKit Job per changed image, `parallel` at a time; any failure stops the delivery before anything is recorded. */
export const build: Step = {
  name: 'build',
  async run(ctx, state) {
    const plan = state.plan ?? [];
    const catalogue = state.catalogue;
    if (catalogue === undefined) throw new Error('build runs after fingerprint');
    const todo = plan.filter((p) => p.build);
    const template = todo.length > 0 ? await ctx.template() : undefined;
    if (todo.length > 0) state.prefix ??= await gitPrefix(ctx.git);
    const references = await runPool(todo, ctx.parallel, async (item) => {
      const image = catalogue.images.find((entry) => entry.name === item.name);
      if (image === undefined) throw new Error(`image ${item.name} left the catalogue`);
      const reference = await runBuildJob(
        {
          kube: ctx.kube,
          profile: ctx.profile,
          template: template!,
          clock: ctx.clock,
          progress: ctx.progress,
          pollMs: ctx.pollMs,
        },
        { image, fingerprint: item.fingerprint, commit: state.commit, prefix: state.prefix ?? '' },
      );
      ctx.log(`build ${item.name}: pushed ${reference}`);
      return [item.name, reference] as const;
    });
    const built = Object.fromEntries(references);
    const images: ImageMap = {};
    for (const item of plan) {
      const reference = built[item.name] ?? item.reference;
      if (reference !== undefined) images[item.name] = reference;
    }
    state.images = images;
    return {
      summary: todo.length === 0 ? 'nothing built' : `built ${todo.length}: ${todo.map((t) => t.name).join(', ')}`,
      fields: { built },
    };
  },
};

/** Our delivery record must still be there; a 409 re-reads, and only our own record lets us write again. */
async function writeAsHolder(
  ctx: DeliveryContext,
  state: DeliveryState,
  changes: Parameters<typeof writeOwnership>[2],
): Promise<OwnershipSnapshot> {
  let snapshot = state.ownership ?? (await readOwnership(ctx.kube, ownershipRef(ctx)));
  for (let attempt = 1; ; attempt++) {
    const record = snapshot.records.delivery;
    if (record === undefined || !sameHolder(record.holder, ctx.holder) || record.commit !== state.commit) {
      throw new DevboxError(
        'conflict',
        `Cannot record the delivery of ${state.commit.slice(0, 12)}: the ownership ConfigMap no longer holds this delivery's record`,
        { details: { found: record } },
      );
    }
    try {
      return await writeOwnership(ctx.kube, snapshot, changes);
    } catch (error) {
      if (!isConflict(error) || attempt >= 5) throw error;
      snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    }
  }
}

/** `revision` and `images` in one compare-and-swap, only after every changed image is pushed. */
export const record: Step = {
  name: 'record',
  async run(ctx, state) {
    const images = state.images ?? {};
    const current = state.ownership?.records;
    if (current?.revision === state.commit && JSON.stringify(current.images ?? {}) === JSON.stringify(images)) {
      return { summary: 'ownership ConfigMap already records this commit' };
    }
    state.ownership = await writeAsHolder(ctx, state, { revision: state.commit, images });
    return { summary: `ownership ConfigMap records ${state.commit.slice(0, 12)}`, fields: { images } };
  },
};

/** Gives the root Application the commit and the image map; the root passes each digest to its child's `kustomize.images`. */
export const rootStep: Step = {
  name: 'root-inputs',
  async run(ctx, state) {
    const { argocd } = ctx.profile.namespaces;
    const name = ctx.profile.root.application;
    const root =
      (await state.applications?.catch(() => undefined))?.[0] ?? (await ctx.kube.get('Application', argocd, name));
    if (root === undefined)
      throw new DevboxError(
        'sync-failed',
        `Cannot give inputs to the root Application "${argocd}/${name}": it does not exist`,
      );
    const patch = rootInputsPatch(
      root as { spec?: unknown },
      rootInputs(state.catalogue!, state.commit, state.images ?? {}, ctx.profile.git.cluster),
    );
    const { branch } = ctx.profile.git;
    if (patch === undefined) state.root = root;
    else {
      state.root = await ctx.kube.mergePatch('Application', argocd, name, patch);
      state.rootPatched = true;
    }
    // The delivery branch follows the root, also on a rerun after a crash between the two.
    await pushRefs(ctx, state.commit, [`refs/heads/${branch}`]);
    return {
      summary:
        patch === undefined
          ? `root inputs already current; ${branch} at ${state.commit.slice(0, 12)}`
          : `root ${name} targets ${state.commit.slice(0, 12)}; ${branch} moved to it`,
    };
  },
};

export const sync: Step = {
  name: 'sync',
  async run(ctx, state) {
    const children = applicationsOf(state);
    // The children as read during the push are a fair first look only when the root's inputs did not change.
    const early = state.rootPatched === true ? [] : ((await state.applications?.catch(() => undefined)) ?? []).slice(1);
    const known = [...(state.root === undefined ? [] : [state.root]), ...early.filter((o) => o !== undefined)];
    const states = await syncApplications({
      kube: ctx.kube,
      namespace: ctx.profile.namespaces.argocd,
      root: ctx.profile.root.application,
      children,
      commit: state.commit,
      timeoutMs: ctx.profile.delivery.syncTimeout,
      clock: ctx.clock,
      log: ctx.log,
      pollMs: ctx.pollMs,
      known,
      resync: builtApplications(state),
    }).catch((error: unknown) => {
      // Record, root inputs and receipt already name the commit: say so, so nobody expects the previous one.
      if (error instanceof SyncError && error.code === 'sync-failed' && error.details?.['operation'] !== undefined) {
        const why = error.message.replace(/^Cannot finish the delivery of [0-9a-f]+: /, '');
        throw new DevboxError(
          'sync-failed',
          `Delivered ${state.commit.slice(0, 12)} (the ownership ConfigMap, the root inputs and the receipt name it) but ${why}`,
          {
            details: { ...error.details, commit: state.commit, recorded: true },
            cause: error,
          },
        );
      }
      if (!(error instanceof SyncError) || error.code !== 'sync-timeout') throw error;
      const why = error.message.replace(/^Cannot finish the delivery of [0-9a-f]+: Applications not /, '');
      throw new DevboxError(
        'sync-timeout',
        `Delivered ${state.commit.slice(0, 12)} (the ownership ConfigMap, the root inputs and the receipt name it) but Argo CD did not report it ${why}`,
        {
          details: { ...error.details, commit: state.commit, recorded: true },
          cause: error,
        },
      );
    });
    return { summary: `Synced and Healthy at ${state.commit.slice(0, 12)}: ${states.map((s) => s.name).join(', ')}` };
  },
};

/** The local cache of the receipt, written atomically (kept as it is when it already says the same). */
export const receipt: Step = {
  name: 'receipt',
  async run(ctx, state) {
    const images = Object.fromEntries(
      (state.plan ?? [])
        .filter((p) => state.images?.[p.name] !== undefined)
        .map((p) => [p.name, { fingerprint: p.fingerprint, reference: state.images?.[p.name] ?? '' }]),
    );
    const current = await (state.prefetch?.receipt ?? readReceipt(ctx.paths.receipt)).catch(() => undefined);
    if (current?.commit === state.commit && JSON.stringify(current.images) === JSON.stringify(images)) {
      return { summary: `receipt of ${state.commit.slice(0, 12)} already current (delivered ${current.delivered})` };
    }
    await writeReceipt(ctx.paths.receipt, {
      schema: 1,
      commit: state.commit,
      delivered: rfc3339(ctx.clock.now()),
      images,
    });
    return { summary: `receipt written to ${ctx.paths.receipt}` };
  },
};

/** Clears the `delivery` record: the target is free again. */
export const release: Step = {
  name: 'release',
  async run(ctx, state) {
    state.ownership = await writeAsHolder(ctx, state, { delivery: null });
    state.claimed = false;
    return { summary: 'delivery record cleared' };
  },
};

// The receipt is written with the record and the root inputs, before the wait for Argo CD: a sync that times out
// leaves a delivery that all three name (Argo CD keeps converging on it), never a receipt older than the cluster.
export const DELIVERY_STEPS: readonly Step[] = [
  claim,
  push,
  fingerprint,
  compare,
  build,
  record,
  rootStep,
  receipt,
  sync,
  release,
];
