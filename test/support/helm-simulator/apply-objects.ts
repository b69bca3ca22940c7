// How Helm 4 puts a release's objects into the cluster (helm/helm@e9b85e4): setMetadataVisitor labels and annotates
// every object (pkg/action/validate.go); an object that already exists must be owned by this release before an install
// or an upgrade that adds it may touch it (existingResourceConflict, checkOwnership: "... exists and cannot be imported
// into the current release: invalid ownership metadata; ..."); objects the new manifest lacks are deleted. Simplified:
// Helm 4 applies server-side (the test API server answers 415 to that); the simulator creates or replaces.
import { parseAllDocuments } from 'yaml';
import type { KubeClient, KubeObject } from './kube-client.ts';

const MANAGED_BY = 'app.kubernetes.io/managed-by';
const RELEASE_NAME = 'meta.helm.sh/release-name';
const RELEASE_NAMESPACE = 'meta.helm.sh/release-namespace';

export function manifestObjects(manifest: string | undefined): KubeObject[] {
  return parseAllDocuments(manifest ?? '')
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && typeof o === 'object');
}

/** objectKey: the group/version/kind, namespace and name that identify an object across manifests. */
export const objectKey = (o: KubeObject, namespace: string) =>
  `${String(o.apiVersion)}/${String(o.kind)}/${namespace}/${String(o.metadata.name)}`;

function requireValue(map: Record<string, string>, key: string, value: string): string | undefined {
  const actual = map[key];
  if (actual === undefined) return `missing key "${key}": must be set to "${value}"`;
  if (actual !== value) return `key "${key}" must equal "${value}": current value is "${actual}"`;
  return undefined;
}

/** checkOwnership: the errors joined as Helm joins them, or undefined when this release owns the object. */
export function ownershipError(live: KubeObject, release: string, namespace: string): string | undefined {
  const labels = (live.metadata.labels as Record<string, string> | undefined) ?? {};
  const annotations = (live.metadata.annotations as Record<string, string> | undefined) ?? {};
  const errs = [
    ['label validation error', requireValue(labels, MANAGED_BY, 'Helm')],
    ['annotation validation error', requireValue(annotations, RELEASE_NAME, release)],
    ['annotation validation error', requireValue(annotations, RELEASE_NAMESPACE, namespace)],
  ]
    .filter(([, e]) => e !== undefined)
    .map(([what, e]) => `${what}: ${e}`);
  return errs.length === 0 ? undefined : `invalid ownership metadata; ${errs.join('; ')}`;
}

/** existingResourceConflict: every object about to be created that exists already must be this release's. */
export async function checkNewObjects(
  kube: KubeClient,
  objects: readonly KubeObject[],
  release: string,
  namespace: string,
): Promise<void> {
  for (const o of objects) {
    const live = await kube.get(kube.path(String(o.apiVersion), String(o.kind), namespace, String(o.metadata.name)));
    if (live === undefined) continue;
    const error = ownershipError(live, release, namespace);
    if (error !== undefined)
      throw new Error(
        `${String(o.kind)} "${String(o.metadata.name)}" in namespace "${namespace}" exists and cannot be imported into the current release: ${error}`,
      );
  }
}

/** Applies the objects with Helm's ownership metadata and deletes what the previous manifest had and this one lacks. */
export async function applyObjects(
  kube: KubeClient,
  release: string,
  namespace: string,
  objects: readonly KubeObject[],
  previous: string | undefined,
): Promise<void> {
  for (const object of objects) {
    const labels = { ...((object.metadata.labels as Record<string, string> | undefined) ?? {}), [MANAGED_BY]: 'Helm' };
    const annotations = {
      ...((object.metadata.annotations as Record<string, string> | undefined) ?? {}),
      [RELEASE_NAME]: release,
      [RELEASE_NAMESPACE]: namespace,
    };
    await kube.apply(namespace, { ...object, metadata: { ...object.metadata, labels, annotations } });
  }
  const keep = new Set(objects.map((o) => objectKey(o, namespace)));
  for (const old of manifestObjects(previous)) {
    if (keep.has(objectKey(old, namespace))) continue;
    await kube.remove(kube.path(String(old.apiVersion), String(old.kind), namespace, String(old.metadata.name)));
  }
}

/** Uninstall: deletes the objects of the manifest this release owns (verifyOwnershipBeforeDelete); others are kept. */
export async function deleteOwned(
  kube: KubeClient,
  release: string,
  namespace: string,
  manifest: string | undefined,
): Promise<string[]> {
  const kept: string[] = [];
  for (const o of manifestObjects(manifest)) {
    const path = kube.path(String(o.apiVersion), String(o.kind), namespace, String(o.metadata.name));
    const live = await kube.get(path);
    if (live === undefined) continue;
    if (ownershipError(live, release, namespace) !== undefined) {
      kept.push(`[${String(o.kind)}] ${String(o.metadata.name)}`);
      continue;
    }
    await kube.remove(path);
  }
  return kept;
}
