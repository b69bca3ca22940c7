// What every command for a target runs first (spec): expired leases, orphan windows, records without windows.
import { isDeepStrictEqual } from 'node:util';
import { readOwnership, writeOwnership } from './ownership-store.ts';
import type { OwnershipSnapshot } from './ownership-store.ts';
import { decideCleanup } from './decide-cleanup.ts';
import { describeHolder } from './holder.ts';
import { isOurWindow, leaseWindow } from './lease-window.ts';
import { isConflict } from '../ports/kube-error.ts';
import { leasedApplications, projectsOf } from './lease-projects.ts';
import { appendWindow, readWindows, removeWindows } from './project-windows.ts';
import { checkProjectWriter } from './project-writer.ts';
import type { ProjectWindows } from './project-windows.ts';
import { removeLease } from './remove-lease.ts';
import type { CleanupOptions } from './remove-lease.ts';

export type { CleanupOptions } from './remove-lease.ts';

export interface CleanupOutcome {
  readonly snapshot: OwnershipSnapshot;
  /** The target's AppProject as last read or written. */
  readonly project: ProjectWindows;
  readonly done: readonly string[];
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
