import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import { ConflictError, KubeError } from '../ports/kube-error.ts';
import { applyOwnershipChanges, parseOwnershipData } from './ownership-records.ts';
import type { OwnershipChanges, OwnershipRecords } from './ownership-records.ts';

export interface OwnershipRef {
  readonly namespace: string;
  readonly name: string;
}

/** What was read, and the resourceVersion every write must name (undefined: the ConfigMap does not exist yet). */
export interface OwnershipSnapshot {
  readonly ref: OwnershipRef;
  readonly resourceVersion: string | undefined;
  readonly data: Readonly<Record<string, string>>;
  readonly records: OwnershipRecords;
  /** The metadata as read (labels, annotations, owners others set): a replace writes it back unchanged. */
  readonly metadata: KubeObject['metadata'] | undefined;
}

export async function readOwnership(kube: Kube, ref: OwnershipRef): Promise<OwnershipSnapshot> {
  const object = await kube.get('ConfigMap', ref.namespace, ref.name);
  return snapshotOf(ref, object);
}

function snapshotOf(ref: OwnershipRef, object: KubeObject | undefined): OwnershipSnapshot {
  const data = (object?.['data'] as Record<string, string> | undefined) ?? {};
  return {
    ref,
    resourceVersion: object?.metadata.resourceVersion,
    data,
    records: parseOwnershipData(data, `ConfigMap "${ref.namespace}/${ref.name}"`),
    metadata: object?.metadata,
  };
}

/**
 * One compare-and-swap against the snapshot's resourceVersion (create when it had none). A ConflictError means
 * another command wrote first: read again and re-decide, never overwrite.
 */
export async function writeOwnership(
  kube: Kube,
  snapshot: OwnershipSnapshot,
  changes: OwnershipChanges,
): Promise<OwnershipSnapshot> {
  const { ref } = snapshot;
  const data = applyOwnershipChanges(snapshot.data, changes);
  if (snapshot.resourceVersion === undefined) {
    try {
      const created = await kube.create('ConfigMap', ref.namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ref.name, namespace: ref.namespace },
        data,
      });
      return snapshotOf(ref, created);
    } catch (error) {
      if (error instanceof KubeError && error.code === 'already-exists') {
        throw new ConflictError(
          `Cannot create ConfigMap "${ref.namespace}/${ref.name}": another command created it first`,
          { status: 409, cause: error },
        );
      }
      throw error;
    }
  }
  const replaced = await kube.replace('ConfigMap', ref.namespace, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    // Read-modify-write of the whole object: labels and annotations others set survive, only `data` changes.
    metadata: {
      ...snapshot.metadata,
      name: ref.name,
      namespace: ref.namespace,
      resourceVersion: snapshot.resourceVersion,
    },
    data,
  });
  return snapshotOf(ref, replaced);
}
