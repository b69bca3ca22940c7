// The clean-up of one lease, in the hand-back order: what it replaced, then its windows, then its record.
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import { describeHolder, leaseId, sameHolder } from './holder.ts';
import type { Holder } from './ownership-records.ts';
import { rfc3339 } from './record-time.ts';
import type { LeaseRecord } from './lease-record.ts';
import { isOurWindow } from './lease-window.ts';
import { leasedApplications, namespacesOf, projectsOf } from './lease-projects.ts';
import type { LeasedApplication } from './lease-projects.ts';
import type { OwnershipSnapshot } from './ownership-store.ts';
import { writeOwnership } from './ownership-store.ts';
import { readWindows, removeWindows } from './project-windows.ts';
import { scaleToZero } from './workload-replacement.ts';
import type { WorkloadReplacement } from './workload-replacement.ts';

/** The parts of a target profile a lease's clean-up reads. */
export interface LeaseTarget {
  readonly name: string;
  readonly namespaces: { readonly argocd: string };
  readonly ownership: string;
  /** The target's AppProject: its windows are looked at even when no leased Application names it. */
  readonly project: string;
}

export interface CleanupOptions {
  readonly kube: Kube;
  readonly profile: LeaseTarget;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** How replaced workloads are found and restored; default scale-to-zero. */
  readonly replacement?: WorkloadReplacement;
  /**
   * Stops what this workstation can see of an expired lease's runtimes and routes, returning what it did (takeover
   * passes it; so does the entry point of a delivery).
   */
  readonly stopLocal?: (record: LeaseRecord) => Promise<readonly string[] | void>;
  /** Who cleans up: when not the lease's holder, the record keeps a note the holder's next command reports. */
  readonly cleaner?: Holder;
}

/**
 * Removes the lease's deny window from every AppProject owning one of its Applications (and `fallback`), each by a
 * JSON patch whose `test` pins the window: every other window stays as it was. Returns the projects changed.
 */
export async function removeLeaseWindows(
  kube: Kube,
  namespace: string,
  lease: Pick<LeaseRecord, 'applications'>,
  fallback?: string,
  apps?: readonly LeasedApplication[],
): Promise<string[]> {
  const leased = apps ?? (await leasedApplications(kube, namespace, lease.applications));
  const projects =
    fallback === undefined ? [...new Set(leased.map((a) => a.project))].sort() : projectsOf(leased, fallback);
  const changed: string[] = [];
  for (const project of projects) {
    const read = await readWindows(kube, namespace, project);
    const { removed } = await removeWindows(kube, namespace, read, (w) => isOurWindow(w, lease));
    if (removed > 0) changed.push(project);
  }
  return changed;
}

/**
 * Restores what the lease replaced, stops what can be seen of its runtimes, removes its windows, then its record,
 * leaving a note of all that for the holder when someone else cleaned.
 */
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
  for (const found of await replacement.find(namespacesOf(apps), leaseId(record))) {
    if (await replacement.restore(found))
      done.push(
        `restored ${found.workload.kind} ${found.workload.namespace}/${found.workload.name} to ${found.replicas} replicas`,
      );
  }
  done.push(...((await options.stopLocal?.(record)) ?? []));
  for (const project of await removeLeaseWindows(kube, ns, record, profile.project, apps))
    done.push(`removed the lease window from AppProject ${project}`);
  done.push(`removed the lease record of ${describeHolder(record)}`);
  const foreign = options.cleaner === undefined || !sameHolder(options.cleaner, record.holder);
  const by = options.cleaner === undefined ? 'a delivery' : describeHolder({ holder: options.cleaner });
  const cleaned = { schema: 1 as const, lease: record, by, at: rfc3339(options.clock.now()), done };
  const next = await writeOwnership(kube, snapshot, { lease: null, ...(foreign ? { cleaned } : {}) });
  return { snapshot: next, done };
}
