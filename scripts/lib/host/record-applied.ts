import { join } from 'node:path';
import { appliedView } from './applied-record.ts';
import type { AppliedV2 } from './applied-record.ts';
import { APPLIED_FILE } from './read-applied.ts';
import { FAILED_ATTEMPT_FILE } from './failed-attempt.ts';
import type { Step } from './tick-context.ts';

/** Step 9: applied.json, atomically, only once every stack is up and healthy; a pending retry is cleared. */
export const recordApplied: Step = async (ctx, state) => {
  const { plan, target } = state;
  if (plan === undefined || !plan.evidence.ok || target === undefined) throw new Error('recordApplied runs after a successful apply');
  const previous = state.applied === undefined ? undefined : appliedView(state.applied);
  const version = plan.evidence.channel.version;
  const record: AppliedV2 = {
    schema: 2,
    ...(target.release === undefined ? {} : { release: target.release }),
    commit: target.commit,
    channelCommit: plan.deployStateCommit,
    ...(version === undefined ? {} : { channelVersion: version }),
    channelIdentity: plan.evidence.identity,
    appliedAt: ctx.ports.clock.now().toISOString(),
    previous: previous === undefined ? null : { ...(previous.release === undefined ? {} : { release: previous.release }), ...(previous.commit === undefined ? {} : { commit: previous.commit }) },
  };
  const root = ctx.config.HEPHAESTUS_ROOT;
  await ctx.ports.fs.writeAtomic(join(root, APPLIED_FILE), `${JSON.stringify(record, null, 2)}\n`, 0o644);
  await ctx.ports.fs.remove(join(root, FAILED_ATTEMPT_FILE));
  state.applied = { format: 2, record };
  return { next: false, fields: { target: target.name }, outcome: { exit: 0, result: 'applied', message: `applied ${target.name}` } };
};
