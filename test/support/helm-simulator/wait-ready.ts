// Helm 4's `--wait=watcher` (helm/helm@e9b85e4 pkg/kube/statuswait.go statusWaiter.wait, statusObserver): every
// object of the release is watched until each is Current (kstatus.ts); a Failed object is terminal and no longer
// waited for; paused Deployments are skipped. The error names each object that is not Current, one per line, as
// `resource <Kind>/<namespace>/<name> not ready. status: <status>, message: <message>`, then `context deadline
// exceeded` when the timeout ended the wait (errors.Join). The simulator polls where Helm watches.
import type { KubeClient, KubeObject } from './kube-client.ts';
import { computeStatus } from './kstatus.ts';
import type { KResult } from './kstatus.ts';

export type WaitStrategy = 'watcher' | 'hookOnly';

export async function waitReady(
  kube: KubeClient,
  namespace: string,
  objects: readonly KubeObject[],
  waitForJobs: boolean,
  timeoutMs: number,
): Promise<void> {
  const watched = objects.filter(
    (o) => !(o.kind === 'Deployment' && (o.spec as { paused?: boolean })?.paused === true),
  );
  // A zero timeout is DefaultStatusWatcherTimeout (30 s), not an immediate deadline.
  const deadline = Date.now() + (timeoutMs === 0 ? 30_000 : timeoutMs);
  for (;;) {
    const results: KResult[] = [];
    for (const object of watched) {
      const live = await kube.get(
        kube.path(String(object.apiVersion), String(object.kind), namespace, String(object.metadata.name)),
      );
      results.push(
        live === undefined ? { status: 'NotFound', message: 'Resource not found' } : computeStatus(live, waitForJobs),
      );
    }
    // statusObserver: Failed is terminal, so the wait ends once everything else is Current.
    const settled = results.every((r) => r.status === 'Current' || r.status === 'Failed');
    const timedOut = !settled && Date.now() >= deadline;
    if (settled || timedOut) {
      const errors = watched.flatMap((o, i) => {
        const r = results[i]!;
        return r.status === 'Current'
          ? []
          : [
              `resource ${String(o.kind)}/${namespace}/${String(o.metadata.name)} not ready. status: ${r.status}, message: ${r.message}`,
            ];
      });
      if (timedOut) errors.push('context deadline exceeded');
      if (errors.length > 0) throw new Error(errors.join('\n'));
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
