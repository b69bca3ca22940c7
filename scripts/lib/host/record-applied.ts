import { join } from 'node:path';
import { appliedView } from './applied-record.ts';
import type { AppliedRecord, AppliedV2 } from './applied-record.ts';
import { APPLIED_FILE } from './read-applied.ts';
import { FAILED_ATTEMPT_FILE } from './failed-attempt.ts';
import type { Step, Target } from './tick-context.ts';
import { recordAcceptedCommit } from './accepted-commits.ts';

/** The release before this one: applying the running target again keeps the one before it (rollback starts there). */
function previousOf(applied: AppliedRecord | undefined, target: Target): AppliedV2['previous'] {
  if (applied === undefined) return null;
  const view = appliedView(applied);
  const same = view.release === target.release && (view.commit === undefined || view.commit === target.commit);
  if (same) return applied.record.previous ?? null;
  return {
    ...(view.release === undefined ? {} : { release: view.release }),
    ...(view.commit === undefined ? {} : { commit: view.commit }),
  };
}

/** Step 9: applied.json, atomically, only once every stack is up and healthy; a pending retry is cleared. Pruning follows. */
export const recordApplied: Step = async (ctx, state) => {
  const { plan, target } = state;
  if (plan === undefined || !plan.evidence.ok || target === undefined)
    throw new Error('recordApplied runs after a successful apply');
  const version = plan.evidence.channel.version;
  const record: AppliedV2 = {
    schema: 2,
    ...(target.release === undefined ? {} : { release: target.release }),
    commit: target.commit,
    channelCommit: plan.deployStateCommit,
    ...(version === undefined ? {} : { channelVersion: version }),
    channelIdentity: plan.evidence.identity,
    appliedAt: ctx.ports.clock.now().toISOString(),
    previous: previousOf(state.applied, target),
  };
  const root = ctx.config.HEPHAESTUS_ROOT;
  await ctx.ports.fs.writeAtomic(join(root, APPLIED_FILE), `${JSON.stringify(record, null, 2)}\n`, 0o644);
  await ctx.ports.fs.remove(join(root, FAILED_ATTEMPT_FILE));
  state.applied = { format: 2, record };
  // The commit accepted for this release, so a rollback after its tag moved still finds it (rebuild, verifiedTarget).
  const remembered =
    target.release === undefined ? true : await recordAcceptedCommit(plan.checkout.git, target.release, target.commit);
  return { next: true, fields: { target: target.name, ...(remembered ? {} : { accepted: 'not recorded' }) } };
};
