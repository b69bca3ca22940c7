// `takeover start`: acquire, replace the workloads, run them locally, renew; hand back on request or when lost.
import { join } from 'node:path';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Receipt } from '../devbox/receipt.ts';
import { LeaseError } from '../lease/lease-error.ts';
import type { LeaseRecord } from '../lease/lease-record.ts';
import { acquire } from './acquire.ts';
import { handBack, journaledRuntimes, stateFor, stopRuntimes } from './hand-back.ts';
import { renewOnce } from './renewer.ts';
import type { RenewOutcome } from './renewer.ts';
import type { TakeoverTarget } from './resolve-workloads.ts';
import { journal } from './run-steps.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';
import { leaseId } from './takeover-context.ts';

export interface Session {
  readonly state: LeaseState;
  renew(): Promise<RenewOutcome>;
  handBack(): Promise<void>;
}

/** Stops this checkout's journaled runtimes of a lease another command is removing. */
export function stopLocalFor(ctx: TakeoverContext): (record: LeaseRecord) => Promise<void> {
  return async (record) => {
    if (record.holder.checkout !== ctx.holder.checkout || record.holder.workstation !== ctx.holder.workstation) return;
    const stopped = await stopRuntimes(ctx, await journaledRuntimes(ctx, record));
    if (stopped.length > 0) ctx.log(`cleanup: stopped ${stopped.join(', ')}`);
  };
}

export async function startSession(ctx: TakeoverContext, receipt: Receipt, catalogue: Catalogue, targets: readonly TakeoverTarget[]): Promise<Session> {
  const applications = [...new Set(targets.flatMap((t) => (t.image.application === undefined ? [] : [t.image.application])))].sort();
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
      throw new LeaseError('no-receipt', `Cannot take over: the local receipt names ${receipt.commit.slice(0, 12)} but the cluster runs ${revision.slice(0, 12)} (run make reconcile)`);
    }
    for (const target of targets) {
      for (const workload of target.workloads) {
        const replacement = await ctx.replacement.replace(workload, leaseId(state.record));
        state.replacements.push(replacement);
        await journal(ctx, state, 'replace', { image: target.image.name, ...replacement });
        ctx.log(`step=replace image=${target.image.name} ${workload.kind} ${workload.namespace}/${workload.name} scaled to 0 (was ${replacement.replicas})`);
        await ctx.afterStep?.('replace');
      }
    }
    for (const target of targets) {
      const runtime = ctx.runtimes[target.image.takeover?.runtime ?? ''];
      if (runtime === undefined) throw new LeaseError('not-a-candidate', `Cannot run image "${target.image.name}": runtime "${target.image.takeover?.runtime ?? '-'}" is not available`);
      const handle = await runtime.start({ image: target.image.name, command: target.command, cwd: ctx.checkout, env: target.env, logFile: join(ctx.paths.dir, `${target.image.name}.log`) });
      state.runtimes.push(handle);
      await journal(ctx, state, 'runtime', { image: handle.image, pid: handle.pid, argv: handle.command });
      ctx.log(`step=runtime image=${target.image.name} pid=${handle.pid} log=${join(ctx.paths.dir, `${target.image.name}.log`)} ${target.command.join(' ')}`);
      await ctx.afterStep?.('runtime');
    }
  } catch (error) {
    ctx.log(`start failed (${(error as Error).message}); handing back`);
    await handBack(ctx, state).catch((cleanup: Error) => ctx.log(`hand-back after the failure failed too: ${cleanup.message}`));
    throw error;
  }
  return session;
}
