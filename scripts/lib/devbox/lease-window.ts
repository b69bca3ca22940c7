import type { Kube } from '../ports/kube.ts';
import type { LeaseRecord } from './ownership-records.ts';

interface Window {
  readonly kind?: unknown;
  readonly manualSync?: unknown;
  readonly applications?: unknown;
}

/** "Our" window (spec): the deny window with `manualSync: false` whose `applications` equal the record's. */
export function isLeaseWindow(window: Window, lease: Pick<LeaseRecord, 'applications'>): boolean {
  const apps = Array.isArray(window.applications) ? [...(window.applications as string[])].sort() : [];
  const want = [...lease.applications].sort();
  return (
    window.kind === 'deny' &&
    window.manualSync === false &&
    apps.length === want.length &&
    apps.every((a, i) => a === want[i])
  );
}

/**
 * Removes an expired lease's deny window from every AppProject owning one of its Applications, by
 * compare-and-swap; every other window is kept as it was. Returns the projects changed.
 */
export async function removeLeaseWindows(
  kube: Kube,
  namespace: string,
  lease: Pick<LeaseRecord, 'applications'>,
): Promise<string[]> {
  const projects = new Set<string>();
  for (const name of lease.applications) {
    const app = await kube.get('Application', namespace, name);
    const project = (app?.['spec'] as { project?: unknown } | undefined)?.project;
    if (typeof project === 'string') projects.add(project);
  }
  const changed: string[] = [];
  for (const name of [...projects].sort()) {
    const project = await kube.get('AppProject', namespace, name);
    if (project === undefined) continue;
    const spec = (project['spec'] ?? {}) as { syncWindows?: Window[] };
    const windows = spec.syncWindows ?? [];
    const kept = windows.filter((window) => !isLeaseWindow(window, lease));
    if (kept.length === windows.length) continue;
    await kube.replace('AppProject', namespace, { ...project, spec: { ...spec, syncWindows: kept } });
    changed.push(name);
  }
  return changed;
}
