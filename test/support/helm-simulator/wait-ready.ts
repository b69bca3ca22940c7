// Helm's `--wait=watcher` and `--wait-for-jobs`, read from the status the cluster's controllers write (the simulator
// writes no status itself): a Deployment or StatefulSet is ready when its controller observed the newest generation
// and every wanted replica is updated and ready; a Job is done when its Complete condition is True, failed at Failed.
import type { KubeClient, KubeObject } from './kube-client.ts';

type Status = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

function conditionTrue(status: Status, type: string): { reason?: string; message?: string } | undefined {
  const conditions =
    (status.conditions as { type: string; status: string; reason?: string; message?: string }[] | undefined) ?? [];
  return conditions.find((c) => c.type === type && c.status === 'True');
}

/** `ready`, `waiting`, or a failure message. Pure. */
export function readiness(object: KubeObject, waitForJobs: boolean): 'ready' | 'waiting' | { failed: string } {
  const kind = String(object.kind);
  const status = (object.status ?? {}) as Status;
  const spec = (object.spec ?? {}) as Status;
  if (kind === 'Deployment' || kind === 'StatefulSet') {
    const wanted = spec.replicas === undefined ? 1 : num(spec.replicas);
    if (num(status.observedGeneration) < num(object.metadata.generation)) return 'waiting';
    return num(status.updatedReplicas) >= wanted && num(status.readyReplicas) >= wanted ? 'ready' : 'waiting';
  }
  if (kind === 'Job' && waitForJobs) {
    const failed = conditionTrue(status, 'Failed');
    if (failed !== undefined)
      return { failed: `job ${String(object.metadata.name)} failed: ${failed.reason ?? 'BackoffLimitExceeded'}` };
    return conditionTrue(status, 'Complete') !== undefined ? 'ready' : 'waiting';
  }
  return 'ready';
}

/** Polls every object until all are ready, one fails, or the timeout passes (Helm: "context deadline exceeded"). */
export async function waitReady(
  kube: KubeClient,
  namespace: string,
  objects: readonly KubeObject[],
  waitForJobs: boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let pending: KubeObject | undefined;
    for (const object of objects) {
      const live = await kube.get(
        kube.path(String(object.apiVersion), String(object.kind), namespace, String(object.metadata.name)),
      );
      if (live === undefined) {
        pending = object;
        break;
      }
      const state = readiness(live, waitForJobs);
      if (typeof state === 'object') throw new Error(state.failed);
      if (state === 'waiting') {
        pending = live;
        break;
      }
    }
    if (pending === undefined) return;
    if (Date.now() >= deadline)
      throw new Error(
        `resource not ready, name: ${String(pending.metadata.name)}, kind: ${String(pending.kind)}, status: InProgress: context deadline exceeded`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
