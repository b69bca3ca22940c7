// Simulates the kube controllers Argo CD waits on: Deployments and StatefulSets report their replicas ready, Jobs
// complete (only in the Applications' destination namespaces; BuildKit Jobs have their own simulator).
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { isConflict } from '../../../scripts/lib/ports/kube-error.ts';
import { sameJson } from './same-json.ts';

export interface WorkloadOptions {
  /** Whether a container image can be pulled; a workload with an unpullable image never becomes available. */
  readonly imageAvailable?: (image: string) => boolean | Promise<boolean>;
}

function images(obj: Record<string, unknown>): string[] {
  const spec = (
    (obj['spec'] as Record<string, unknown> | undefined)?.['template'] as
      | { spec?: { containers?: { image?: string }[]; initContainers?: { image?: string }[] } }
      | undefined
  )?.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]
    .map((c) => c.image ?? '')
    .filter((i) => i !== '');
}

/** One pass over the namespaces: returns how many objects it changed. */
export async function reconcileWorkloads(
  kube: Kube,
  namespaces: Iterable<string>,
  now: Date,
  options: WorkloadOptions = {},
): Promise<number> {
  let changed = 0;
  const pullable = async (obj: Record<string, unknown>) => {
    for (const image of images(obj)) if (options.imageAvailable && !(await options.imageAvailable(image))) return false;
    return true;
  };
  for (const ns of namespaces) {
    for (const job of await kube.list('Job', ns)) {
      const conditions = (job['status'] as { conditions?: { type: string }[] } | undefined)?.conditions ?? [];
      const suspended = (job['spec'] as { suspend?: boolean } | undefined)?.suspend === true;
      if (suspended || conditions.some((c) => c.type === 'Complete' || c.type === 'Failed') || !(await pullable(job)))
        continue;
      const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
      const status = {
        startTime: at,
        completionTime: at,
        succeeded: 1,
        conditions: [{ type: 'Complete', status: 'True', lastProbeTime: at, lastTransitionTime: at }],
      };
      try {
        await kube.replaceStatus('Job', ns, { ...job, status });
        changed++;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    for (const kind of ['Deployment', 'StatefulSet'] as const) {
      for (const obj of await kube.list(kind, ns)) {
        const replicas =
          typeof (obj['spec'] as { replicas?: number } | undefined)?.replicas === 'number'
            ? (obj['spec'] as { replicas: number }).replicas
            : 1;
        const ready = (await pullable(obj)) ? replicas : 0;
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
