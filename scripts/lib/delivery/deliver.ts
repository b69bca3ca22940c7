import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { gitPort } from '../ports/git.ts';
import type { Clock } from '../ports/clock.ts';
import { systemClock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import { loadJobTemplate } from './build-job.ts';
import { cleanupTarget } from '../ownership/cleanup-target.ts';
import type { CleanupOptions } from '../ownership/cleanup-target.ts';
import { sameHolder } from '../ownership/holder.ts';
import { readCheckoutCommit } from './resolve-checkout.ts';
import { DeliveryError } from './delivery-error.ts';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { parseCatalogue } from '../catalogue/parse-catalogue.ts';
import type { DeliveryContext, DeliveryState, Step } from './delivery-context.ts';
import { ownershipRef } from './delivery-context.ts';
import { DELIVERY_STEPS } from './delivery-steps.ts';
import { compare } from './steps/compare.ts';
import { fingerprint } from './steps/fingerprint.ts';
import { readReceipt } from '../target/receipt.ts';
import { appendJournal, openJournal } from '../steps/jsonl-journal.ts';
import { jsonlSink } from '../steps/jsonl-sink.ts';
import { runSteps } from '../steps/run-steps.ts';
import type { ResumePolicy } from '../steps/resume-policy.ts';
import { acquireLocalLock } from '../target/local-lock.ts';
import type { Holder } from '../ownership/ownership-records.ts';
import { readOwnership, writeOwnership } from '../ownership/ownership-store.ts';
import type { OwnershipSnapshot } from '../ownership/ownership-store.ts';
import type { ImagePlan } from './plan-builds.ts';
import { targetStatePaths } from '../target/state-paths.ts';
import type { TargetProfile } from '../target/target-profile.ts';

export interface DeliverOptions {
  readonly profile: TargetProfile;
  readonly kube: Kube;
  /** The checkout holding the catalogue (absolute). */
  readonly checkout: string;
  readonly rev?: string;
  readonly parallel?: number;
  readonly clock?: Clock;
  readonly workstation?: string;
  readonly log?: (line: string) => void;
  readonly progress?: (image: string, line: string) => void;
  readonly pollMs?: number;
  /** Called after each step is journaled (tests use it to kill the process at a step boundary). */
  readonly afterStep?: (step: string) => Promise<void> | void;
  /** The command the journal names (`make deploy` runs the delivery steps after its own). */
  readonly command?: 'reconcile' | 'deploy';
  /** The steps to run, in order; default the delivery's. */
  readonly steps?: readonly Step[];
  /** What a rerun after a crash resumes, given the commit being delivered; default none (every step converges). */
  readonly resume?: (commit: string) => ResumePolicy;
  /**
   * Read the cluster only when a step does (`make deploy`: its layers make the cluster first); default false, the
   * first read and clean-up overlap resolving the commit.
   */
  readonly lazyFirstRead?: boolean;
  /**
   * Stops what this workstation can see of an expired lease's runtimes and routes when the delivery's clean-up
   * removes it (the entry point passes takeover's; without it the record, windows and replacement still go).
   */
  readonly stopLeaseRuntimes?: CleanupOptions['stopLocal'];
}

export interface DeliveryOutcome {
  readonly commit: string;
  readonly plan: readonly ImagePlan[];
  readonly images: Readonly<Record<string, string>>;
  readonly steps: readonly { readonly step: string; readonly summary: string }[];
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}

async function makeContext(
  options: DeliverOptions,
  run: string,
): Promise<{ ctx: DeliveryContext; commit: string; catalogue: Catalogue }> {
  const git = gitPort(options.checkout);
  const [{ commit, file }, paths] = await Promise.all([
    readCheckoutCommit(git, options.rev ?? 'HEAD', CATALOGUE_PATH),
    targetStatePaths(options.checkout, options.profile.name),
  ]);
  if (file === undefined) {
    throw new DeliveryError(
      'plan-failed',
      `Cannot deliver ${commit.slice(0, 12)}: "${CATALOGUE_PATH}" is not in that commit of "${options.checkout}"`,
      { details: { commit } },
    );
  }
  // The commit's own catalogue, checked before anything in the cluster changes.
  const catalogue = parseCatalogue(file.toString('utf8'), CATALOGUE_PATH);
  const log = options.log ?? ((line: string) => process.stderr.write(`devbox: ${line}\n`));
  const ctx: DeliveryContext = {
    profile: options.profile,
    checkout: options.checkout,
    git,
    kube: options.kube,
    clock: options.clock ?? systemClock,
    holder: { checkout: options.checkout, workstation: options.workstation ?? hostname() },
    paths,
    template: once(() => loadJobTemplate(options.profile.jobTemplatePath)),
    parallel: options.parallel ?? options.profile.build.parallel,
    run,
    log,
    progress: options.progress ?? ((image, line) => log(`build ${image}: ${line}`)),
    pollMs: options.pollMs,
    ...(options.stopLeaseRuntimes === undefined ? {} : { stopLeaseRuntimes: options.stopLeaseRuntimes }),
  };
  return { ctx, commit, catalogue };
}

/** `--dry-run`: reads the ownership ConfigMap and fingerprints; writes nothing, builds nothing. */
export async function planDelivery(options: DeliverOptions): Promise<DeliveryOutcome> {
  const { ctx, commit, catalogue } = await makeContext(options, 'dry-run');
  const state: DeliveryState = { commit, catalogue };
  const steps = [];
  for (const step of [fingerprint, compare])
    steps.push({ step: step.name, summary: (await step.run(ctx, state)).summary });
  return { commit, plan: state.plan ?? [], images: state.ownership?.records.images ?? {}, steps };
}

/**
 * Delivers a commit to the target as ordered, journaled steps. On any failure the steps that record the
 * delivery have not run, so receipt, ConfigMap `revision`/`images` and root inputs are as before; our
 * `delivery` record is then cleared and the error rethrown.
 */
export async function deliver(options: DeliverOptions): Promise<DeliveryOutcome> {
  const run = `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  // The first read of the ownership ConfigMap overlaps resolving the commit; the claim step uses it once. It is the
  // cleanup every command for a target runs first (expired lease, orphan windows and records: docs/takeover.md).
  const firstRead = options.lazyFirstRead === true ? undefined : firstCleanup(options, options.clock ?? systemClock);
  const { ctx, commit, catalogue } = await makeContext(options, run);
  const lock = await acquireLocalLock(
    join(ctx.paths.dir, 'delivery.lock'),
    `a delivery to target "${options.profile.name}"`,
  );
  const receipt = readReceipt(ctx.paths.receipt);
  receipt.catch(() => {}); // awaited by the fingerprint step; a damaged receipt only costs a full fingerprint
  const state: DeliveryState = { commit, catalogue, prefetch: { receipt }, firstRead };
  const command = options.command ?? 'reconcile';
  const journal = await openJournal(ctx.paths.journal);
  try {
    const { done } = await runSteps(ctx, state, {
      steps: options.steps ?? DELIVERY_STEPS,
      journal: jsonlSink({
        journal,
        clock: ctx.clock,
        command,
        run,
        entry: () => ({ commit }),
        log: ctx.log,
        label: () => `commit=${commit.slice(0, 12)}`,
      }),
      resume: options.resume?.(commit),
      afterStep: options.afterStep,
    });
    return {
      commit,
      plan: state.plan ?? [],
      images: state.images ?? {},
      steps: done.map((d) => ({ step: d.step, summary: d.summary ?? '' })),
    };
  } catch (error) {
    if (state.claimed === true) await releaseAfterFailure(ctx, commit, error, command);
    throw error;
  } finally {
    await journal.close();
    await lock.release();
  }
}

/** The clean-up every command for a target runs first; its snapshot is the claim's first read. */
function firstCleanup(options: DeliverOptions, clock: Clock): Promise<OwnershipSnapshot> {
  const read = cleanupTarget({
    kube: options.kube,
    profile: options.profile,
    clock,
    log: options.log ?? ((line) => process.stderr.write(`devbox: ${line}\n`)),
    ...(options.stopLeaseRuntimes === undefined ? {} : { stopLocal: options.stopLeaseRuntimes }),
  }).then((cleaned) => cleaned.snapshot);
  read.catch(() => {}); // awaited by the claim
  return read;
}

/** Best effort: the failure itself is what the user must see. */
async function releaseAfterFailure(
  ctx: DeliveryContext,
  commit: string,
  error: unknown,
  command: string,
): Promise<void> {
  try {
    const snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    const record = snapshot.records.delivery;
    if (record !== undefined && sameHolder(record.holder as Holder, ctx.holder) && record.commit === commit)
      await writeOwnership(ctx.kube, snapshot, { delivery: null });
    await appendJournal(ctx.paths.journal, {
      time: ctx.clock.now().toISOString(),
      command,
      run: ctx.run,
      step: 'failed',
      commit,
      error: (error as Error).message,
    });
  } catch (cleanup) {
    ctx.log(`could not clear the delivery record after the failure: ${(cleanup as Error).message}`);
  }
}
