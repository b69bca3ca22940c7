// Simulates the kube controllers Argo CD waits on: Deployments and StatefulSets report their replicas ready.
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { isConflict } from '../../../scripts/lib/ports/kube-error.ts';
import { sameJson } from './same-json.ts';

export interface WorkloadOptions {
  /** Whether a container image can be pulled; a workload with an unpullable image never becomes available. */
  readonly imageAvailable?: (image: string) => boolean | Promise<boolean>;
}

function images(obj: Record<string, unknown>): string[] {
  const spec = ((obj['spec'] as Record<string, unknown> | undefined)?.['template'] as { spec?: { containers?: { image?: string }[]; initContainers?: { image?: string }[] } } | undefined)?.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].map((c) => c.image ?? '').filter((i) => i !== '');
}

/** One pass over the namespaces: returns how many objects it changed. */
export async function reconcileWorkloads(kube: Kube, namespaces: Iterable<string>, options: WorkloadOptions = {}): Promise<number> {
  let changed = 0;
  for (const ns of namespaces) {
    for (const kind of ['Deployment', 'StatefulSet'] as const) {
      for (const obj of await kube.list(kind, ns)) {
        const replicas = typeof (obj['spec'] as { replicas?: number } | undefined)?.replicas === 'number' ? (obj['spec'] as { replicas: number }).replicas : 1;
        let pullable = true;
        for (const image of images(obj)) if (options.imageAvailable && !(await options.imageAvailable(image))) pullable = false;
        const ready = pullable ? replicas : 0;
        const status = {
          observedGeneration: obj.metadata.generation ?? 1,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: ready,
          availableReplicas: ready,
          ...(kind === 'StatefulSet' ? { currentReplicas: replicas } : {}),
        };
        if (sameJson(obj['status'] ?? {}, status)) continue;
        try {
          await kube.replaceStatus(kind, ns, { ...obj, status });
          changed++;
        } catch (error) {
          if (!isConflict(error)) throw error; // changed meanwhile: the next pass sees the new generation
        }
      }
    }
  }
  return changed;
}
