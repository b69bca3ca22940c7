// Sync windows of an AppProject, changed only by JSON patches whose `test` pins what was read: other windows stay byte for byte.
import { isDeepStrictEqual } from 'node:util';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject, JsonPatchOperation } from '../ports/kube-kinds.ts';
import { isConflict } from '../ports/kube-error.ts';

export interface ProjectWindows {
  readonly project: string;
  /** undefined when the AppProject does not exist. */
  readonly resourceVersion: string | undefined;
  /** undefined when `spec.syncWindows` is absent. */
  readonly windows: readonly unknown[] | undefined;
}

export function windowsOf(name: string, object: KubeObject | undefined): ProjectWindows {
  const spec = object?.['spec'] as { syncWindows?: unknown } | undefined;
  return {
    project: name,
    resourceVersion: object?.metadata.resourceVersion,
    windows: Array.isArray(spec?.syncWindows) ? spec.syncWindows : undefined,
  };
}

export async function readWindows(kube: Kube, namespace: string, project: string): Promise<ProjectWindows> {
  return windowsOf(project, await kube.get('AppProject', namespace, project));
}

/** Appends `window` unless an equal one is there (idempotent); re-reads and retries when the project changed meanwhile. */
export async function appendWindow(
  kube: Kube,
  namespace: string,
  read: ProjectWindows,
  window: unknown,
  isSame: (w: unknown) => boolean,
): Promise<ProjectWindows> {
  let current = read;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (current.resourceVersion === undefined)
      throw new Error(`AppProject "${namespace}/${current.project}" does not exist`);
    if ((current.windows ?? []).some(isSame)) return current;
    const ops: JsonPatchOperation[] =
      current.windows === undefined
        ? [
            { op: 'test', path: '/metadata/resourceVersion', value: current.resourceVersion },
            { op: 'add', path: '/spec/syncWindows', value: [window] },
          ]
        : [
            { op: 'test', path: '/spec/syncWindows', value: current.windows },
            { op: 'add', path: '/spec/syncWindows/-', value: window },
          ];
    try {
      return windowsOf(current.project, await kube.jsonPatch('AppProject', namespace, current.project, ops));
    } catch (error) {
      if (!isConflict(error)) throw error;
      current = await readWindows(kube, namespace, current.project);
    }
  }
  throw new Error(`Cannot add the lease window to AppProject "${namespace}/${current.project}": it keeps changing`);
}

/** Removes every window `remove` picks, each pinned by a `test` of its exact value; returns how many went. */
export async function removeWindows(
  kube: Kube,
  namespace: string,
  read: ProjectWindows,
  remove: (w: unknown) => boolean,
): Promise<{ removed: number; after: ProjectWindows }> {
  let current = read;
  for (let attempt = 0; attempt < 5; attempt++) {
    const windows = current.windows ?? [];
    const indices = windows.flatMap((w, i) => (remove(w) ? [i] : [])).reverse();
    if (indices.length === 0 || current.resourceVersion === undefined) return { removed: 0, after: current };
    const ops: JsonPatchOperation[] = indices.flatMap((i) => [
      { op: 'test' as const, path: `/spec/syncWindows/${i}`, value: windows[i] },
      { op: 'remove' as const, path: `/spec/syncWindows/${i}` },
    ]);
    try {
      return {
        removed: indices.length,
        after: windowsOf(current.project, await kube.jsonPatch('AppProject', namespace, current.project, ops)),
      };
    } catch (error) {
      if (!isConflict(error)) throw error;
      current = await readWindows(kube, namespace, current.project);
    }
  }
  throw new Error(`Cannot remove lease windows from AppProject "${namespace}/${current.project}": it keeps changing`);
}

/**
 * Replaces the first window `isSame` picks with `next` in one request when it is still at the index last seen;
 * otherwise re-reads. Returns the project after, or undefined when no such window exists any more.
 */
export async function replaceWindow(
  kube: Kube,
  namespace: string,
  read: ProjectWindows,
  isSame: (w: unknown) => boolean,
  next: unknown,
): Promise<ProjectWindows | undefined> {
  let current = read;
  for (let attempt = 0; attempt < 5; attempt++) {
    const windows = current.windows ?? [];
    const index = windows.findIndex(isSame);
    if (index < 0) return undefined;
    if (isDeepStrictEqual(windows[index], next)) return current;
    const ops: JsonPatchOperation[] = [
      { op: 'test', path: `/spec/syncWindows/${index}`, value: windows[index] },
      { op: 'replace', path: `/spec/syncWindows/${index}`, value: next },
    ];
    try {
      return windowsOf(current.project, await kube.jsonPatch('AppProject', namespace, current.project, ops));
    } catch (error) {
      if (!isConflict(error)) throw error;
      current = await readWindows(kube, namespace, current.project);
    }
  }
  throw new Error(`Cannot renew the lease window in AppProject "${namespace}/${current.project}": it keeps changing`);
}
