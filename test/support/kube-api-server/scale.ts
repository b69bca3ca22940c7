// The `scale` subresource of Deployments and StatefulSets: an autoscaling/v1 Scale view of spec.replicas.
import { z } from 'zod';
import type { KubeObject } from './object-store.ts';
import { ApiFailureError, failure } from './status.ts';

const workloadSchema = z.looseObject({
  spec: z
    .looseObject({
      replicas: z.number().optional(),
      selector: z.looseObject({ matchLabels: z.record(z.string(), z.string()).optional() }).optional(),
    })
    .optional(),
  status: z.looseObject({ replicas: z.number().optional() }).optional(),
});

const scaleSchema = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string().optional() }).optional(),
  spec: z.looseObject({ replicas: z.number().int().min(0).optional() }).optional(),
});

export function scaleOf(obj: KubeObject): Record<string, unknown> {
  const w = workloadSchema.parse(obj);
  const m = obj.metadata;
  const selector = Object.entries(w.spec?.selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m['name'],
      namespace: m['namespace'],
      uid: m['uid'],
      resourceVersion: m['resourceVersion'],
      creationTimestamp: m['creationTimestamp'],
    },
    spec: { replicas: w.spec?.replicas ?? 1 },
    status: { replicas: w.status?.replicas ?? 0, selector },
  };
}

/** The workload with the Scale's replicas; a resourceVersion in the Scale makes it a compare-and-swap. */
export function scaleUpdate(current: KubeObject, wanted: unknown): KubeObject {
  const parsed = scaleSchema.safeParse(wanted);
  if (!parsed.success)
    throw new ApiFailureError(
      failure(
        422,
        `Scale.autoscaling "${String(current.metadata['name'])}" is invalid: spec.replicas: Invalid value: must be greater than or equal to 0`,
      ),
    );
  const replicas = parsed.data.spec?.replicas ?? workloadSchema.parse(current).spec?.replicas ?? 1;
  const resourceVersion = parsed.data.metadata?.resourceVersion ?? current.metadata['resourceVersion'];
  return {
    ...current,
    metadata: { ...current.metadata, resourceVersion },
    spec: { ...(current['spec'] as object), replicas },
  };
}
