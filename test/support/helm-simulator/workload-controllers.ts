// Simulated cluster controllers for the Helm simulator's waits (a simulator: no kubelet or controller-manager runs here).
// They write the status the real Deployment, StatefulSet and Job controllers write once Pods run, in the fields Helm 4's
// kstatus reads (kstatus.ts): a Deployment's replicas, updated/ready/availableReplicas and its Available and Progressing
// conditions (reasons MinimumReplicasAvailable / NewReplicaSetAvailable, as kubernetes pkg/controller/deployment sets
// them); a StatefulSet's current/updated replicas and revisions; a Job's startTime, then Complete or Failed. Faults a
// test sets: a Job that fails, a workload whose Pods never become ready, a Deployment past its progress deadline.
import type { KubeApiServer } from '../kube-api-server/index.ts';
import type { KubeObject } from '../kube-api-server/index.ts';

export interface WorkloadFaults {
  /** A Job whose Pod template uses one of these images fails (BackoffLimitExceeded). */
  failJobImages: Set<string>;
  /** A Deployment or StatefulSet using one of these images never gets a ready replica. */
  neverReadyImages: Set<string>;
  /** A Deployment using one of these images gets Progressing=False, ProgressDeadlineExceeded (kstatus: Failed). */
  deadlineImages: Set<string>;
}

export interface WorkloadControllers {
  readonly faults: WorkloadFaults;
  stop(): void;
}

const images = (o: KubeObject): string[] => {
  const spec = (o['spec'] ?? {}) as { template?: { spec?: { containers?: { image?: string }[] } } };
  return (spec.template?.spec?.containers ?? []).map((c) => c.image ?? '');
};
const condition = (type: string, status: boolean, reason: string, message: string) => ({
  type,
  status: status ? 'True' : 'False',
  reason,
  message,
});

function deploymentStatus(name: string, generation: number, wanted: number, ready: number, deadline: boolean) {
  const done = ready >= wanted;
  return {
    observedGeneration: generation,
    replicas: wanted,
    updatedReplicas: wanted,
    readyReplicas: ready,
    availableReplicas: ready,
    conditions: [
      done
        ? condition('Available', true, 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
        : condition('Available', false, 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
      deadline
        ? condition('Progressing', false, 'ProgressDeadlineExceeded', `ReplicaSet "${name}" has timed out progressing.`)
        : done
          ? condition(
              'Progressing',
              true,
              'NewReplicaSetAvailable',
              `ReplicaSet "${name}" has successfully progressed.`,
            )
          : condition('Progressing', true, 'ReplicaSetUpdated', `ReplicaSet "${name}" is progressing.`),
    ],
  };
}

export function startWorkloadControllers(server: KubeApiServer, intervalMs = 50): WorkloadControllers {
  const faults: WorkloadFaults = { failJobImages: new Set(), neverReadyImages: new Set(), deadlineImages: new Set() };
  const kinds = new Set(['Deployment', 'StatefulSet', 'Job']);
  const pass = () => {
    for (const entry of server.store.entries()) {
      if (!kinds.has(entry.type.kind) || entry.object.metadata['deletionTimestamp'] !== undefined) continue;
      const o = entry.object;
      const name = String(o.metadata['name']);
      const generation = Number(o.metadata['generation'] ?? 1);
      const status = (o['status'] ?? {}) as Record<string, unknown>;
      const uses = (set: Set<string>) => images(o).some((i) => set.has(i));
      let next: Record<string, unknown>;
      if (entry.type.kind === 'Job') {
        if (Array.isArray(status['conditions']) && status['conditions'].length > 0) continue;
        const startTime = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        next = uses(faults.failJobImages)
          ? {
              startTime,
              failed: 1,
              conditions: [
                condition('Failed', true, 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
              ],
            }
          : {
              startTime,
              completionTime: startTime,
              succeeded: 1,
              conditions: [
                condition('Complete', true, 'CompletionsReached', 'Reached expected number of succeeded pods'),
              ],
            };
      } else {
        const wanted = ((o['spec'] ?? {}) as { replicas?: number }).replicas ?? 1;
        const ready = uses(faults.neverReadyImages) || uses(faults.deadlineImages) ? 0 : wanted;
        const revision = `${name}-${generation}`;
        next =
          entry.type.kind === 'Deployment'
            ? deploymentStatus(name, generation, wanted, ready, uses(faults.deadlineImages))
            : {
                observedGeneration: generation,
                replicas: wanted,
                readyReplicas: ready,
                currentReplicas: wanted,
                updatedReplicas: wanted,
                availableReplicas: ready,
                currentRevision: revision,
                updateRevision: revision,
              };
        if (JSON.stringify(next) === JSON.stringify(status)) continue;
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
