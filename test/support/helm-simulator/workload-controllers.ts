// Simulated cluster controllers for the Helm simulator's waits (a simulator: no kubelet or controller-manager runs here).
// They write the status a real Deployment, StatefulSet and Job controller would once Pods run: every wanted replica
// updated and ready, a Job Complete. Faults a test sets: a Job that fails, a workload whose Pods never become ready.
import type { KubeApiServer } from '../kube-api-server/index.ts';
import type { KubeObject } from '../kube-api-server/index.ts';

export interface WorkloadFaults {
  /** A Job whose Pod template uses one of these images fails (BackoffLimitExceeded). */
  failJobImages: Set<string>;
  /** A Deployment or StatefulSet using one of these images never gets a ready replica. */
  neverReadyImages: Set<string>;
}

export interface WorkloadControllers {
  readonly faults: WorkloadFaults;
  stop(): void;
}

const images = (o: KubeObject): string[] => {
  const spec = (o['spec'] ?? {}) as { template?: { spec?: { containers?: { image?: string }[] } } };
  return (spec.template?.spec?.containers ?? []).map((c) => c.image ?? '');
};

export function startWorkloadControllers(server: KubeApiServer, intervalMs = 50): WorkloadControllers {
  const faults: WorkloadFaults = { failJobImages: new Set(), neverReadyImages: new Set() };
  const kinds = new Set(['Deployment', 'StatefulSet', 'Job']);
  const pass = () => {
    for (const entry of server.store.entries()) {
      if (!kinds.has(entry.type.kind) || entry.object.metadata['deletionTimestamp'] !== undefined) continue;
      const o = entry.object;
      const name = String(o.metadata['name']);
      const generation = Number(o.metadata['generation'] ?? 1);
      const status = (o['status'] ?? {}) as Record<string, unknown>;
      let next: Record<string, unknown> | undefined;
      if (entry.type.kind === 'Job') {
        if (Array.isArray(status['conditions']) && status['conditions'].length > 0) continue;
        const failed = images(o).some((i) => faults.failJobImages.has(i));
        const condition = failed
          ? {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
            }
          : { type: 'Complete', status: 'True' };
        next = failed ? { failed: 1, conditions: [condition] } : { succeeded: 1, conditions: [condition] };
      } else {
        const spec = (o['spec'] ?? {}) as { replicas?: number };
        const wanted = spec.replicas ?? 1;
        const ready = images(o).some((i) => faults.neverReadyImages.has(i)) ? 0 : wanted;
        if (
          status['observedGeneration'] === generation &&
          status['readyReplicas'] === ready &&
          status['replicas'] === wanted
        )
          continue;
        next = {
          observedGeneration: generation,
          replicas: wanted,
          updatedReplicas: wanted,
          readyReplicas: ready,
          availableReplicas: ready,
        };
      }
      try {
        server.store.update(entry.type, entry.namespace, name, { ...o, status: next }, 'status');
      } catch {
        // Changed or deleted meanwhile: the next pass looks again, as a controller's requeue would.
      }
    }
  };
  const timer = setInterval(pass, intervalMs);
  return { faults, stop: () => clearInterval(timer) };
}
