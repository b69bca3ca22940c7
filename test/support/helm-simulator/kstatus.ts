// Helm 4's readiness (`--wait=watcher`) is kstatus: fluxcd/cli-utils@967855f (v1.2.1; Helm pins v1.2.2)
// pkg/kstatus/status/status.go Compute, generic.go checkGenericProperties, core.go (deploymentConditions,
// stsConditions, jobConditions, podConditions, pvcConditions, serviceConditions), and, with --wait-for-jobs, Helm's own
// Job reader (helm/helm@e9b85e4 internal/statusreaders/job_status_reader.go: Current only once Complete). Pure.
type Obj = Record<string, unknown>;
export type KStatus = 'InProgress' | 'Failed' | 'Current' | 'Terminating' | 'NotFound' | 'Unknown';
export interface KResult {
  readonly status: KStatus;
  readonly message: string;
}

const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Obj)[k] : undefined), o);
const int = (o: unknown, path: string, fallback: number): number => {
  const v = at(o, path);
  return typeof v === 'number' ? v : fallback;
};
const str = (o: unknown, path: string, fallback: string): string => {
  const v = at(o, path);
  return typeof v === 'string' ? v : fallback;
};
interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}
const conditions = (o: Obj): Condition[] => {
  const c = at(o, 'status.conditions');
  return Array.isArray(c) ? (c as Condition[]) : [];
};
const inProgress = (message: string): KResult => ({ status: 'InProgress', message });
const current = (message: string): KResult => ({ status: 'Current', message });
// The API server defaults spec.progressDeadlineSeconds to 600 (k8s.io/api apps/v1 DeploymentSpec); the test server does
// not default, so the simulator applies the default itself rather than read "no deadline" (always progressing).
const DEFAULT_PROGRESS_DEADLINE = 600;

function generic(o: Obj): KResult | undefined {
  if (str(o, 'metadata.deletionTimestamp', '') !== '')
    return { status: 'Terminating', message: 'Resource scheduled for deletion' };
  const generation = at(o, 'metadata.generation');
  const observed = at(o, 'status.observedGeneration');
  if (typeof generation === 'number' && typeof observed === 'number' && observed !== generation)
    return inProgress(`${String(o.kind)} generation is ${generation}, but latest observed generation is ${observed}`);
  for (const c of conditions(o)) {
    if (c.type === 'Reconciling' && c.status === 'True') return inProgress(c.message ?? '');
    if (c.type === 'Stalled' && c.status === 'True') return { status: 'Failed', message: c.message ?? '' };
  }
  return undefined;
}

function deployment(o: Obj): KResult {
  let progressing = int(o, 'spec.progressDeadlineSeconds', DEFAULT_PROGRESS_DEADLINE) === 2147483647;
  let available = false;
  for (const c of conditions(o)) {
    if (c.type === 'Progressing') {
      if (c.reason === 'ProgressDeadlineExceeded') return { status: 'Failed', message: 'Progress deadline exceeded' };
      if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progressing = true;
    }
    if (c.type === 'Available' && c.status === 'True') available = true;
  }
  const spec = int(o, 'spec.replicas', 1);
  const replicas = int(o, 'status.replicas', 0);
  const updated = int(o, 'status.updatedReplicas', 0);
  const ready = int(o, 'status.readyReplicas', 0);
  const availableReplicas = int(o, 'status.availableReplicas', 0);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > updated) return inProgress(`Updated: ${updated}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (updated > availableReplicas) return inProgress(`Available: ${availableReplicas}/${updated}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (!progressing) return inProgress('ReplicaSet not Available');
  if (!available) return inProgress('Deployment not Available');
  return current(`Deployment is available. Replicas: ${replicas}`);
}

function statefulSet(o: Obj): KResult {
  if (str(o, 'spec.updateStrategy.type', '') === 'OnDelete')
    return current('StatefulSet is using the ondelete update strategy');
  const spec = int(o, 'spec.replicas', 1);
  const ready = int(o, 'status.readyReplicas', 0);
  const currentReplicas = int(o, 'status.currentReplicas', 0);
  const updated = int(o, 'status.updatedReplicas', 0);
  const replicas = int(o, 'status.replicas', 0);
  const partition = int(o, 'spec.updateStrategy.rollingUpdate.partition', -1);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (partition !== -1) {
    if (updated < spec - partition) return inProgress(`updated: ${updated}/${spec - partition}`);
    return current(`Partition rollout complete. updated: ${updated}`);
  }
  if (spec > currentReplicas) return inProgress(`current: ${currentReplicas}/${spec}`);
  if (str(o, 'status.currentRevision', '') !== str(o, 'status.updateRevision', ''))
    return inProgress('Waiting for updated revision to match current');
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}

/** kstatus's Job rule (Current once started) or, with --wait-for-jobs, Helm's (Current only once Complete). */
function job(o: Obj, helmReader: boolean): KResult {
  const completions = int(o, 'spec.completions', int(o, 'spec.parallelism', 1));
  for (const c of conditions(o)) {
    if (c.type === 'Complete' && c.status === 'True')
      return current(`Job Completed. succeeded: ${int(o, 'status.succeeded', 0)}/${completions}`);
    if (c.type === 'Failed' && c.status === 'True')
      return { status: 'Failed', message: `Job Failed. failed: ${int(o, 'status.failed', 0)}/${completions}` };
  }
  if (helmReader) return inProgress('Job in progress');
  if (str(o, 'status.startTime', '') === '') return inProgress('Job not started');
  const [s, a, f] = ['succeeded', 'active', 'failed'].map((k) => int(o, `status.${k}`, 0));
  return current(`Job in progress. success:${s}, active: ${a}, failed: ${f}`);
}

function pod(o: Obj): KResult {
  const phase = str(o, 'status.phase', '');
  if (phase === 'Succeeded') return current('Pod has completed successfully');
  if (phase === 'Failed') return current('Pod has completed, but not successfully');
  if (phase === 'Running')
    return conditions(o).some((c) => c.type === 'Ready' && c.status === 'True')
      ? current('Pod is Ready')
      : inProgress('Pod is running but is not Ready');
  if (phase === 'Pending') return inProgress('Pod is in the Pending phase');
  return inProgress('Pod phase not available');
}

/** The kstatus status of a live object, as Helm 4's status watcher computes it. */
export function computeStatus(o: Obj, waitForJobs: boolean): KResult {
  const kind = String(o.kind);
  if (kind === 'Job' && waitForJobs) return job(o, true);
  const g = generic(o);
  if (g !== undefined) return g;
  switch (kind) {
    case 'Deployment':
      return deployment(o);
    case 'StatefulSet':
      return statefulSet(o);
    case 'Job':
      return job(o, false);
    case 'Pod':
      return pod(o);
    case 'PersistentVolumeClaim': {
      const phase = str(o, 'status.phase', 'unknown');
      return phase === 'Bound' ? current('PVC is Bound') : inProgress(`PVC is not Bound. phase: ${phase}`);
    }
    case 'Service':
      return str(o, 'spec.type', 'ClusterIP') === 'LoadBalancer' && str(o, 'spec.clusterIP', '') === ''
        ? inProgress('ClusterIP not set. Service type: LoadBalancer')
        : current('Service is ready');
    case 'ConfigMap':
    case 'Secret':
      return current('Resource is always ready');
    default:
      return current('Resource is current');
  }
}
