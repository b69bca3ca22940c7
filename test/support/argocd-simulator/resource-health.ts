// Argo CD's built-in health checks for the kinds the platform deploys; kinds without one count as Healthy.
export type HealthStatus = 'Healthy' | 'Suspended' | 'Progressing' | 'Missing' | 'Degraded' | 'Unknown';

const ORDER: readonly HealthStatus[] = ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown'];

export function worse(a: HealthStatus, b: HealthStatus): HealthStatus {
  return ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a;
}

export interface Health {
  readonly status: HealthStatus;
  readonly message?: string;
}

type Obj = { metadata?: { generation?: number }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' ? v : fallback;
}

export function resourceHealth(kind: string, live: Obj | undefined): Health {
  if (!live) return { status: 'Missing' };
  const spec = live.spec ?? {};
  const status = live.status ?? {};
  switch (kind) {
    case 'Deployment': {
      if (spec['paused'] === true) return { status: 'Suspended', message: 'Deployment is paused' };
      const replicas = num(spec['replicas'], 1);
      if (num(status['observedGeneration'], -1) < num(live.metadata?.generation, 0))
        return {
          status: 'Progressing',
          message: 'Waiting for rollout to finish: observed deployment generation less than desired generation',
        };
      if (num(status['updatedReplicas']) < replicas)
        return {
          status: 'Progressing',
          message: `Waiting for rollout to finish: ${num(status['updatedReplicas'])} out of ${replicas} new replicas have been updated...`,
        };
      if (num(status['availableReplicas']) < num(status['updatedReplicas']))
        return {
          status: 'Progressing',
          message: `Waiting for rollout to finish: ${num(status['availableReplicas'])} of ${num(status['updatedReplicas'])} updated replicas are available...`,
        };
      return { status: 'Healthy' };
    }
    case 'StatefulSet': {
      const replicas = num(spec['replicas'], 1);
      if (num(status['observedGeneration'], -1) < num(live.metadata?.generation, 0))
        return { status: 'Progressing', message: 'Waiting for statefulset spec update to be observed...' };
      if (num(status['readyReplicas']) < replicas)
        return {
          status: 'Progressing',
          message: `Waiting for ${replicas - num(status['readyReplicas'])} pods to be ready...`,
        };
      return { status: 'Healthy' };
    }
    case 'Job': {
      if (spec['suspend'] === true) return { status: 'Suspended', message: 'Job is suspended' };
      const conditions =
        (status['conditions'] as { type: string; status: string; message?: string }[] | undefined) ?? [];
      const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
      if (failed) return { status: 'Degraded', message: failed.message ?? 'Job failed' };
      if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return { status: 'Healthy' };
      return { status: 'Progressing' };
    }
    default:
      // Argo CD >= 1.8 has no health check for child Applications, ConfigMaps, Services without load balancers…
      return { status: 'Healthy' };
  }
}
