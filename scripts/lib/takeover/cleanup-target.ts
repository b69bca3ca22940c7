// What every command for a target runs first (spec): expired leases, orphan windows, records without windows.
import { isDeepStrictEqual } from 'node:util';
import { readOwnership, writeOwnership } from '../devbox/ownership-store.ts';
import type { OwnershipSnapshot } from '../devbox/ownership-store.ts';
import type { TargetProfile } from '../devbox/target-profile.ts';
import { decideCleanup } from '../lease/decide-cleanup.ts';
import type { LeaseRecord } from '../lease/lease-record.ts';
import { describeHolder } from '../lease/lease-record.ts';
import { isOurWindow, leaseWindow } from '../lease/lease-window.ts';
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import { isConflict } from '../ports/kube-error.ts';
import { leasedApplications, projectsOf } from './lease-projects.ts';
import { appendWindow, readWindows, removeWindows } from './project-windows.ts';
import { checkProjectWriter } from './project-writer.ts';
import type { ProjectWindows } from './project-windows.ts';
import { leaseId } from './takeover-context.ts';
import { scaleToZero } from './replacement/workload-replacement.ts';
import type { WorkloadReplacement } from './replacement/workload-replacement.ts';

export interface CleanupOptions {
  readonly kube: Kube;
  readonly profile: TargetProfile;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly replacement?: WorkloadReplacement;
  /** Stops this workstation's runtimes of an expired lease (takeover passes it; a delivery has none). */
  readonly stopLocal?: (record: LeaseRecord) => Promise<void>;
}

export interface CleanupOutcome {
  readonly snapshot: OwnershipSnapshot;
  /** The target's AppProject as last read or written. */
  readonly project: ProjectWindows;
  readonly done: readonly string[];
}

/** Restores what the lease replaced, removes its windows, then its record: the hand-back order. */
export async function removeLease(
  options: CleanupOptions,
  snapshot: OwnershipSnapshot,
  record: LeaseRecord,
): Promise<{ snapshot: OwnershipSnapshot; done: string[] }> {
  const { kube, profile } = options;
  const ns = profile.namespaces.argocd;
  const done: string[] = [];
  const apps = await leasedApplications(kube, ns, record.applications);
  const replacement = options.replacement ?? scaleToZero(kube);
  await options.stopLocal?.(record);
  for (const found of await replacement.find(
    apps.flatMap((a) => (a.namespace === undefined ? [] : [a.namespace])),
    leaseId(record),
  )) {
    if (await replacement.restore(found))
      done.push(
        `restored ${found.workload.kind} ${found.workload.namespace}/${found.workload.name} to ${found.replicas} replicas`,
      );
  }
  for (const project of projectsOf(apps, profile.project)) {
    const { removed } = await removeWindows(kube, ns, await readWindows(kube, ns, project), (w) =>
      isOurWindow(w, record),
    );
    if (removed > 0) done.push(`removed the lease window from AppProject ${project}`);
  }
  const next = await writeOwnership(kube, snapshot, { lease: null });
  done.push(`removed the lease record of ${describeHolder(record)}`);
  return { snapshot: next, done };
}

export async function cleanupTarget(options: CleanupOptions): Promise<CleanupOutcome> {
  const { kube, profile, clock } = options;
  const ns = profile.namespaces.argocd;
  const ref = { namespace: ns, name: profile.ownership };
  const done: string[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      // The project before the record: a live lease's window is never read as an orphan (see decideCleanup).
      let project = await readWindows(kube, ns, profile.project);
      let snapshot = await readOwnership(kube, ref);
      const actions = decideCleanup(snapshot.records.lease, project.windows ?? [], clock.now());
      // Every action but dropping a record writes sync windows, which the project-writer fence admits from its administrator only.
      if (actions.some((a) => a.kind !== 'remove-record'))
        await checkProjectWriter(kube, ns, profile.name, 'clean up an expired or unfinished lease');
      for (const action of actions) {
        if (action.kind === 'remove-expired') {
          options.log(
            `cleanup: removing the expired lease of ${describeHolder(action.record)} (expired ${action.record.expires})`,
          );
          const removed = await removeLease(options, snapshot, action.record);
          snapshot = removed.snapshot;
          done.push(...removed.done);
          project = await readWindows(kube, ns, profile.project);
        } else if (action.kind === 'remove-orphan-window') {
          const result = await removeWindows(kube, ns, project, (w) => isDeepStrictEqual(w, action.window));
          project = result.after;
          if (result.removed > 0)
            done.push(
              `removed an orphan lease window on [${String(action.window['applications'])}] from AppProject ${profile.project}`,
            );
        } else if (action.kind === 'remove-record') {
          snapshot = await writeOwnership(kube, snapshot, { lease: null });
          done.push(`removed the lease record of ${describeHolder(action.record)} left handing back`);
        } else {
          const window = leaseWindow(action.record);
          const apps = await leasedApplications(kube, ns, action.record.applications);
          for (const name of projectsOf(apps, profile.project)) {
            const read = name === profile.project ? project : await readWindows(kube, ns, name);
            const after = await appendWindow(kube, ns, read, window, (w) => isOurWindow(w, action.record));
            if (name === profile.project) project = after;
          }
          done.push(`completed the lease window of ${describeHolder(action.record)}`);
        }
      }
      for (const line of done) options.log(`cleanup: ${line}`);
      return { snapshot, project, done };
    } catch (error) {
      if (isConflict(error) && attempt < 5) continue; // another command wrote first: read again and re-decide
      throw error;
    }
  }
}
