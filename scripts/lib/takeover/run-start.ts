// `takeover start` as one call: this checkout's start lock, the images, acquire and run them here, follow saves, renew
// until stopped or lost, hand everything back.
import { TargetError } from '../target/target-error.ts';
import { acquireLocalLock } from '../target/local-lock.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import { chooseImages } from './choose-images.ts';
import { planTakeover } from './plan-takeover.ts';
import { receiptAt } from './receipt-at.ts';
import { runRenewals } from './renewal-loop.ts';
import { resolveWorkloads } from './resolve-workloads.ts';
import { checkBuildPaths } from './runtime/docker-runtime.ts';
import { RUNTIMES } from './runtime/runtimes.ts';
import { startSession } from './session.ts';
import { startLockOf } from './stop-running.ts';
import { watchSession } from './session-watcher.ts';
import type { TakeoverContext } from './takeover-context.ts';

export interface StartRequest {
  /** Catalogue names to run here; none: every candidate. */
  readonly images: readonly string[];
  readonly renewMs: number;
  /** Follow saved files, restarting what a save moves. */
  readonly watch: boolean;
  readonly debounceMs: number;
  /** Resolves when the user asks to stop (Ctrl-C, SIGTERM, `takeover stop`). */
  readonly stopped: Promise<void>;
}

/** Resolves once everything is handed back; a lost lease is handed back, then thrown. */
export async function runTakeoverStart(ctx: TakeoverContext, request: StartRequest): Promise<void> {
  const lock = await acquireLocalLock(startLockOf(ctx.paths.dir), `a takeover of target "${ctx.profile.name}"`).catch(
    (error: unknown) => {
      if (error instanceof TargetError)
        throw new LeaseError(
          'lease-held',
          `Cannot start a takeover of target "${ctx.profile.name}": ${String(error.details['pid'] ? `process ${error.details['pid']} of this checkout runs one` : error.message)}`,
        );
      throw error;
    },
  );
  try {
    const receipt = await receiptAt(ctx.paths.receipt, ctx.profile.name);
    const { catalogue, rows } = await planTakeover({
      checkout: ctx.checkout,
      receipt,
      runtimes: Object.keys(RUNTIMES),
    });
    const chosen = chooseImages(rows, request.images, Object.keys(RUNTIMES));
    // Refused before any lease exists: a Docker build reads only what the fingerprint reads.
    for (const entry of catalogue.images)
      if (chosen.includes(entry.name) && entry.takeover?.runtime === 'docker')
        await checkBuildPaths(ctx.checkout, entry);
    const targets = await resolveWorkloads(ctx.kube, ctx.profile.namespaces.argocd, catalogue, receipt, chosen);
    const session = await startSession(ctx, receipt, catalogue, targets);
    ctx.log(
      `holding [${session.state.record.applications.join(', ')}] until ${session.state.record.expires}; Ctrl-C hands back`,
    );
    const watcher = request.watch
      ? await watchSession(ctx, session.state, catalogue, targets, { debounceMs: request.debounceMs })
      : undefined;
    const outcome = await runRenewals({
      renew: () => session.renew(),
      everyMs: request.renewMs,
      log: ctx.log,
      stopped: request.stopped,
    });
    await watcher?.close();
    if (outcome.kind === 'lost') ctx.log(`lease lost: ${outcome.reason}; handing back`);
    await session.handBack();
    if (outcome.kind === 'lost')
      throw new LeaseError('lease-lost', `Lost the lease on target "${ctx.profile.name}": ${outcome.reason}`);
    ctx.log('handed back');
  } finally {
    await lock.release();
  }
}
