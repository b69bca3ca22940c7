// Hand-back (spec): mark; stop runtimes, detach replacements and aliases, remove agents once all stopped; unwindow, unrecord, settle.
import { readOwnership, writeOwnership } from '../ownership/ownership-store.ts';
import { syncApplications } from '../argocd/sync-applications.ts';
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { sameLease } from '../ownership/lease-record.ts';
import { isOurWindow } from '../ownership/lease-window.ts';
import { isConflict } from '../ports/kube-error.ts';
import { leasedApplications, projectsOf } from '../ownership/lease-projects.ts';
import { CLEANUP_STEPS } from './handback-cleanup.ts';
import { readWindows, removeWindows } from '../ownership/project-windows.ts';
import { runLeaseSteps } from './lease-journal.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from './takeover-context.ts';

const ownershipRef = (ctx: TakeoverContext) => ({
  namespace: ctx.profile.namespaces.argocd,
  name: ctx.profile.ownership,
});

const mark: LeaseStep = {
  name: 'mark',
  async run(ctx, state) {
    const snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    state.snapshot = snapshot;
    const current = snapshot.records.lease;
    if (!sameLease(current, state.record))
      return { summary: 'the lease record is no longer ours: only our own changes are undone' };
    if (current!.state === 'handing-back') return { summary: 'lease already handing back' };
    const next: LeaseRecord = { ...current!, state: 'handing-back' };
    state.snapshot = await writeOwnership(ctx.kube, snapshot, { lease: next });
    state.record = next;
    return { summary: 'lease marked handing-back' };
  },
};

const unwindow: LeaseStep = {
  name: 'unwindow',
  async run(ctx, state) {
    const ns = ctx.profile.namespaces.argocd;
    const snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    state.snapshot = snapshot;
    const current = snapshot.records.lease;
    // A newer lease on the same Applications has a window equal to ours: it is theirs now.
    if (
      current !== undefined &&
      !sameLease(current, state.record) &&
      current.applications.join() === state.record.applications.join()
    ) {
      return { summary: 'window left to the lease that holds these Applications now' };
    }
    const apps = await leasedApplications(ctx.kube, ns, state.record.applications);
    const removed: string[] = [];
    for (const project of projectsOf(apps, ctx.profile.project)) {
      const result = await removeWindows(ctx.kube, ns, await readWindows(ctx.kube, ns, project), (w) =>
        isOurWindow(w, state.record),
      );
      if (result.removed > 0) removed.push(project);
    }
    state.projects = [];
    return {
      summary: removed.length === 0 ? 'no lease window left' : `removed the lease window from ${removed.join(', ')}`,
    };
  },
};

const unrecord: LeaseStep = {
  name: 'unrecord',
  async run(ctx, state) {
    for (let attempt = 1; ; attempt++) {
      const snapshot =
        attempt === 1 && state.snapshot ? state.snapshot : await readOwnership(ctx.kube, ownershipRef(ctx));
      if (!sameLease(snapshot.records.lease, state.record)) return { summary: 'no lease record of ours left' };
      try {
        state.snapshot = await writeOwnership(ctx.kube, snapshot, { lease: null });
        return { summary: 'lease record removed' };
      } catch (error) {
        if (!isConflict(error) || attempt >= 5) throw error;
      }
    }
  },
};

const settle: LeaseStep = {
  name: 'settle',
  async run(ctx, state) {
    const snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    const current = snapshot.records.lease;
    if (current !== undefined && !sameLease(current, state.record))
      return { summary: `not waiting: ${current.holder.workstation}:${current.holder.checkout} holds the target now` };
    const commit = snapshot.records.revision ?? state.record.commit;
    const states = await syncApplications({
      kube: ctx.kube,
      namespace: ctx.profile.namespaces.argocd,
      root: ctx.profile.root.application,
      children: state.record.applications,
      commit,
      timeoutMs: ctx.profile.delivery.syncTimeout,
      clock: ctx.clock,
      log: ctx.log,
      pollMs: ctx.pollMs,
    });
    return { summary: `Synced and Healthy at ${commit.slice(0, 12)}: ${states.map((s) => s.name).join(', ')}` };
  },
};

export const HANDBACK_STEPS: readonly LeaseStep[] = [mark, ...CLEANUP_STEPS, unwindow, unrecord, settle];

/** Hands the lease back from any state; each step is journaled and a retried hand-back continues after the last one done. */
export async function handBack(ctx: TakeoverContext, state: LeaseState): Promise<void> {
  await runLeaseSteps(ctx, state, HANDBACK_STEPS, 'handback');
}

export function stateFor(record: LeaseRecord): LeaseState {
  return { record, projects: [], images: [], replacements: [], runtimes: [] };
}
