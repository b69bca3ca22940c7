import { join } from 'node:path';
import { appliedView } from './applied-record.ts';
import type { AppliedV2 } from './applied-record.ts';
import { planTick } from './plan-tick.ts';
import { readApplied, APPLIED_FILE } from './read-applied.ts';
import type { Step } from './tick-context.ts';

/** Step 1: configuration is loaded by the shell; read applied.json (a corrupt one stops the tick). */
export const readState: Step = async (ctx, state) => {
  state.applied = await readApplied(ctx.config.HEPHAESTUS_ROOT);
  const view = state.applied === undefined ? undefined : appliedView(state.applied);
  return {
    next: true,
    fields: {
      channel: ctx.config.HEPHAESTUS_CHANNEL,
      stacks: ctx.config.HEPHAESTUS_STACKS,
      applied: view?.release ?? view?.commit ?? 'none',
    },
  };
};

/** A major downgrade waits for an operator (database restore); every other refusal may clear on the next promotion. */
export function refusalExit(reason: string): 1 | 3 {
  return reason === 'major-downgrade' ? 3 : 1;
}

/** Step 2: fetch deploy-state, verify the channel and decide; anything but "apply" ends the tick here. */
export const fetchAndDecide: Step = async (ctx, state) => {
  const plan = await planTick(ctx.config, () => ctx.trust('promote'), ctx.ports.clock, ctx.ports.exec);
  state.plan = plan;
  state.applied = plan.applied;
  const { result } = plan;
  const fields = {
    decision: result.decision,
    reason: result.reason,
    version: result.version,
    deployState: plan.deployStateCommit,
  };
  if (result.decision === 'refuse')
    return {
      next: false,
      fields,
      outcome: { exit: refusalExit(result.reason), result: 'refused', message: result.message },
    };
  if (result.decision === 'stale')
    return { next: false, fields, outcome: { exit: 3, result: 'stale', message: result.message } };
  if (result.decision === 'noop') {
    await recordAccepted(ctx.config.HEPHAESTUS_ROOT, ctx, state);
    return { next: false, fields, outcome: { exit: 0, result: 'noop', message: result.message } };
  }
  return { next: true, fields };
};

/** Rule 7: an unchanged request restarts nothing, but the accepted deploy-state commit and the channel's identity move. */
async function recordAccepted(root: string, ctx: Parameters<Step>[0], state: Parameters<Step>[1]): Promise<void> {
  const plan = state.plan;
  if (plan === undefined || state.applied === undefined || !plan.evidence.ok) return;
  const view = appliedView(state.applied);
  const identity = plan.evidence.identity;
  const version = plan.evidence.channel.version;
  if (
    view.channelCommit === plan.deployStateCommit &&
    view.channelIdentity === identity &&
    view.channelVersion === version
  )
    return;
  const old = state.applied.record;
  const record: AppliedV2 = {
    schema: 2,
    ...(view.release === undefined ? {} : { release: view.release }),
    commit: view.commit ?? '',
    channelCommit: plan.deployStateCommit,
    ...(version === undefined ? {} : { channelVersion: version }),
    channelIdentity: identity,
    appliedAt: old.appliedAt,
    ...(old.previous === undefined ? {} : { previous: old.previous }),
  };
  // A seed record of a release has no commit: it stays as it is until the next apply names one.
  if (record.commit === '') return;
  await ctx.ports.fs.writeAtomic(join(root, APPLIED_FILE), `${JSON.stringify(record, null, 2)}\n`, 0o644);
  state.applied = { format: 2, record };
}
