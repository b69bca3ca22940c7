// Acquire (spec): (1) refuse or clean up, (2) record `acquiring` then window, (3) wait for operations, (4) mark `held`.
import { writeOwnership } from '../ownership/ownership-store.ts';
import { decideAcquire } from '../ownership/decide-acquire.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { sameLease } from '../ownership/lease-record.ts';
import { isOurWindow, leaseWindow } from '../ownership/lease-window.ts';
import { isConflict } from '../ports/kube-error.ts';
import { cleanupTarget } from '../ownership/cleanup-target.ts';
import { projectsOf } from '../ownership/lease-projects.ts';
import { checkProjectWriter } from '../ownership/project-writer.ts';
import { appendWindow, readWindows } from '../ownership/project-windows.ts';
import { journal, runLeaseSteps } from './lease-journal.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from './takeover-context.ts';
import { waitOperations } from './wait-operations.ts';

export interface AcquireRequest {
  readonly applications: readonly string[];
  readonly commit: string;
  /** A process of this checkout already runs a takeover of the target. */
  readonly liveHere: boolean;
  /** Stops this workstation's runtimes of a lease being removed. */
  readonly stopLocal?: (record: LeaseRecord) => Promise<readonly string[] | void>;
  /** Hands back this checkout's older lease on other Applications before acquiring. */
  readonly handBack: (record: LeaseRecord) => Promise<void>;
}

const record: LeaseStep = {
  name: 'record',
  async run(ctx, state) {
    const current = state.snapshot?.records.lease;
    if (sameLease(current, state.record)) return { summary: 'lease record already written' };
    state.snapshot = await writeOwnership(ctx.kube, state.snapshot!, { lease: state.record });
    return {
      summary: `lease record written (acquiring) on [${state.record.applications.join(', ')}] until ${state.record.expires}`,
    };
  },
};

const window: LeaseStep = {
  name: 'window',
  async run(ctx, state) {
    const ns = ctx.profile.namespaces.argocd;
    const read = state.projects[0] ?? (await readWindows(ctx.kube, ns, ctx.profile.project));
    state.projects = [
      await appendWindow(ctx.kube, ns, read, leaseWindow(state.record), (w) => isOurWindow(w, state.record)),
    ];
    const w = leaseWindow(state.record);
    return {
      summary: `deny window "${w.schedule}" for ${w.duration} in AppProject ${ctx.profile.project}`,
      fields: { window: w },
    };
  },
};

const settle: LeaseStep = {
  name: 'settle',
  async run(ctx, state) {
    const ns = ctx.profile.namespaces.argocd;
    const { apps, terminated } = await waitOperations(ctx, state.record.applications, state.record.commit);
    const missing = state.record.applications.filter((name) => !apps.some((a) => a.name === name));
    if (missing.length > 0)
      throw new LeaseError(
        'bad-workload',
        `Cannot take over: Application ${missing.map((m) => `"${ns}/${m}"`).join(', ')} does not exist`,
      );
    // Each AppProject owning a leased Application gets the window (the target's own one already has it).
    for (const project of projectsOf(apps, ctx.profile.project)) {
      if (state.projects.some((p) => p.project === project)) continue;
      state.projects.push(
        await appendWindow(ctx.kube, ns, await readWindows(ctx.kube, ns, project), leaseWindow(state.record), (w) =>
          isOurWindow(w, state.record),
        ),
      );
    }
    return {
      summary:
        terminated.length === 0 ? 'no operation in progress' : `terminated operations of ${terminated.join(', ')}`,
      fields: { terminated },
    };
  },
};

const held: LeaseStep = {
  name: 'held',
  async run(ctx, state) {
    if (state.record.state === 'held') return { summary: 'lease already held' };
    const next: LeaseRecord = { ...state.record, state: 'held' };
    state.snapshot = await writeOwnership(ctx.kube, state.snapshot!, { lease: next });
    state.record = next;
    return { summary: `lease held until ${next.expires}` };
  },
};

export const ACQUIRE_STEPS: readonly LeaseStep[] = [record, window, settle, held];

/** Acquires (or continues this checkout's interrupted acquire of) the lease; a 409 anywhere re-reads and re-decides. */
export async function acquire(ctx: TakeoverContext, request: AcquireRequest): Promise<LeaseState> {
  const writer = await checkProjectWriter(ctx.kube, ctx.profile.namespaces.argocd, ctx.profile.name);
  ctx.log(
    writer.kind === 'no-fence'
      ? 'acquire: no project-writer fence installed: sync windows are not guarded'
      : `acquire: writing sync windows as the bootstrap administrator "${writer.username}"`,
  );
  for (let attempt = 1; ; attempt++) {
    const cleaned = await cleanupTarget({
      kube: ctx.kube,
      profile: ctx.profile,
      clock: ctx.clock,
      log: ctx.log,
      replacement: ctx.replacement,
      stopLocal: request.stopLocal,
      cleaner: ctx.holder,
    });
    const decision = decideAcquire({
      records: cleaned.snapshot.records,
      holder: ctx.holder,
      applications: request.applications,
      commit: request.commit,
      now: ctx.clock.now(),
      ttlMs: ctx.ttlMs,
      liveHere: request.liveHere,
    });
    if (decision.kind === 'refuse')
      throw new LeaseError(decision.code, `Cannot take over on target "${ctx.profile.name}": ${decision.reason}`, {
        details: { target: ctx.profile.name },
      });
    if (decision.kind === 'replace') {
      ctx.log(`acquire: handing back this checkout's lease on [${decision.old.applications.join(', ')}] first`);
      await request.handBack(decision.old);
      continue;
    }
    const state: LeaseState = {
      record: decision.record,
      snapshot: cleaned.snapshot,
      projects: [cleaned.project],
      images: [],
      replacements: [],
      runtimes: [],
    };
    await journal(ctx, state, 'acquire:check', {
      fresh: decision.kind === 'acquire',
      summary: decision.kind === 'resume' ? "continuing this checkout's interrupted acquire" : 'target free',
      record: decision.record,
    });
    ctx.log(
      `step=acquire:check ${decision.kind === 'resume' ? `continuing the lease acquired ${decision.record.acquired}` : 'target free'}`,
    );
    await ctx.afterStep?.('acquire:check');
    try {
      await runLeaseSteps(ctx, state, ACQUIRE_STEPS, 'acquire');
      return state;
    } catch (error) {
      if (isConflict(error) && attempt < 5) continue;
      throw error;
    }
  }
}
