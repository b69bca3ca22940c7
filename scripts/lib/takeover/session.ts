// `takeover start`: acquire, run the images here, route or scale the workloads to them, renew; hand back on request or when lost.
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Receipt } from '../target/receipt.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { acquire } from './acquire.ts';
import { handBack, stateFor } from './hand-back.ts';
import { stopLocalFor } from './stop-local.ts';
import { joinClusterNetwork, journalRuntime, replaceWorkload, startRuntime } from './start-runtime.ts';
import { renewOnce } from './renewer.ts';
import type { RenewOutcome } from './renewer.ts';
import type { TakeoverTarget } from './resolve-workloads.ts';
import { journal } from './lease-journal.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';
import { leaseId } from '../ownership/holder.ts';

export interface Session {
  readonly state: LeaseState;
  renew(): Promise<RenewOutcome>;
  handBack(): Promise<void>;
}

export async function startSession(
  ctx: TakeoverContext,
  receipt: Receipt,
  catalogue: Catalogue,
  targets: readonly TakeoverTarget[],
): Promise<Session> {
  const applications = [
    ...new Set(targets.flatMap((t) => (t.image.application === undefined ? [] : [t.image.application]))),
  ].sort();
  const stopLocal = stopLocalFor(ctx);
  const state = await acquire(ctx, {
    applications,
    commit: receipt.commit,
    liveHere: false,
    stopLocal,
    handBack: (old) => handBack(ctx, stateFor(old)),
  });
  state.catalogue = catalogue;
  state.images = targets.map((t) => t.image.name);
  const session: Session = { state, renew: () => renewOnce(ctx, state), handBack: () => handBack(ctx, state) };
  try {
    const revision = state.snapshot?.records.revision;
    if (revision !== undefined && revision !== receipt.commit) {
      throw new LeaseError(
        'no-receipt',
        `Cannot take over: the local receipt names ${receipt.commit.slice(0, 12)} but the cluster runs ${revision.slice(0, 12)} (run make reconcile)`,
      );
    }
    state.clusterNetwork = await joinClusterNetwork(ctx, state, targets);
    for (const target of targets) {
      const handle = await startRuntime(ctx, target, undefined, state);
      state.runtimes.push(handle);
      await journalRuntime(ctx, state, handle);
      await ctx.afterStep?.('runtime');
    }
    // The runtimes listen first: the route then sends traffic to something that answers.
    for (const target of targets) {
      const handle = state.runtimes.find((h) => h.image === target.image.name);
      for (const workload of target.workloads) {
        const replacement = await replaceWorkload(ctx, target, workload, leaseId(state.record), handle?.hostPort);
        state.replacements.push(replacement);
        await journal(ctx, state, 'replace', { image: target.image.name, ...replacement });
        const how =
          replacement.via === 'telepresence'
            ? `replaced through telepresence${replacement.port === undefined ? '' : ` (port ${replacement.port})`}`
            : `scaled to 0 (was ${replacement.replicas})`;
        ctx.log(
          `step=replace image=${target.image.name} ${workload.kind} ${workload.namespace}/${workload.name} ${how}`,
        );
        await ctx.afterStep?.('replace');
      }
    }
  } catch (error) {
    ctx.log(`start failed (${(error as Error).message}); handing back`);
    await handBack(ctx, state).catch((cleanup: Error) =>
      ctx.log(`hand-back after the failure failed too: ${cleanup.message}`),
    );
    throw error;
  }
  return session;
}
