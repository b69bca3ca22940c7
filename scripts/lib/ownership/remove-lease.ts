// The clean-up of one lease, in the hand-back order: what it replaced, then its windows, then its record.
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import { describeHolder, leaseId } from './holder.ts';
import type { LeaseRecord } from './lease-record.ts';
import { isOurWindow } from './lease-window.ts';
import { leasedApplications, projectsOf } from './lease-projects.ts';
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
  /** Stops this workstation's runtimes of an expired lease (takeover passes it; a delivery has none). */
  readonly stopLocal?: (record: LeaseRecord) => Promise<void>;
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
  for (const project of await removeLeaseWindows(kube, ns, record, profile.project, apps))
    done.push(`removed the lease window from AppProject ${project}`);
  const next = await writeOwnership(kube, snapshot, { lease: null });
  done.push(`removed the lease record of ${describeHolder(record)}`);
  return { snapshot: next, done };
}
