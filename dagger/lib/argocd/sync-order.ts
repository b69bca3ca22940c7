// Argo CD's sync order (gitops-engine pkg/sync/sync_tasks.go): phase, then wave, then kind, then name.
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const HOOK = 'argocd.argoproj.io/hook';
export const HOOK_DELETE_POLICY = 'argocd.argoproj.io/hook-delete-policy';

export type SyncPhase = 'PreSync' | 'Sync' | 'PostSync' | 'SyncFail';
const PHASE_ORDER: Record<SyncPhase, number> = { PreSync: -1, Sync: 0, PostSync: 1, SyncFail: 2 };

// Helm's kind order, which Argo CD reuses; kinds not listed (custom resources) come last.
const KINDS = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'Ingress',
  'APIService',
];

/** Argo CD's kindOrder value: negative for listed kinds, 0 (last) for the rest. */
export function kindOrder(kind: string): number {
  const i = KINDS.indexOf(kind);
  return i < 0 ? 0 : i - KINDS.length;
}

export interface Ordered {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
}

/** The sync-wave annotation as an integer; absent or not an integer is wave 0 (Helm's hook weight is not read). */
export function syncWave(obj: Ordered): number {
  const text = obj.metadata.annotations?.[SYNC_WAVE];
  if (text === undefined || !/^[+-]?\d+$/.test(text.trim())) return 0;
  return Number(text.trim());
}

/** The phases a hook runs in; `[]` for a plain resource; `Skip` makes it neither. */
export function hookPhases(obj: Ordered): SyncPhase[] | 'Skip' | undefined {
  const text = obj.metadata.annotations?.[HOOK];
  if (text === undefined) return undefined;
  const values = text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (values.includes('Skip')) return 'Skip';
  return values.filter((v): v is SyncPhase => v in PHASE_ORDER);
}

export interface SyncTask<T extends Ordered> {
  readonly phase: SyncPhase;
  readonly wave: number;
  readonly hook: boolean;
  readonly object: T;
}

/** Every task of a sync in the order Argo CD runs them; a hook in several phases is one task per phase. */
export function syncTasks<T extends Ordered>(objects: readonly T[]): SyncTask<T>[] {
  const tasks: SyncTask<T>[] = [];
  for (const object of objects) {
    const phases = hookPhases(object);
    if (phases === 'Skip') continue;
    if (phases === undefined) tasks.push({ phase: 'Sync', wave: syncWave(object), hook: false, object });
    else for (const phase of phases) tasks.push({ phase, wave: syncWave(object), hook: true, object });
  }
  return tasks.sort(
    (a, b) =>
      PHASE_ORDER[a.phase] - PHASE_ORDER[b.phase] ||
      a.wave - b.wave ||
      kindOrder(a.object.kind) - kindOrder(b.object.kind) ||
      (a.object.metadata.name < b.object.metadata.name ? -1 : a.object.metadata.name > b.object.metadata.name ? 1 : 0),
  );
}

/** The tasks grouped by (phase, wave), in order: Argo CD waits for each group to be healthy before the next. */
export function syncGroups<T extends Ordered>(
  objects: readonly T[],
): { phase: SyncPhase; wave: number; tasks: SyncTask<T>[] }[] {
  const groups: { phase: SyncPhase; wave: number; tasks: SyncTask<T>[] }[] = [];
  for (const task of syncTasks(objects)) {
    const last = groups.at(-1);
    if (last !== undefined && last.phase === task.phase && last.wave === task.wave) last.tasks.push(task);
    else groups.push({ phase: task.phase, wave: task.wave, tasks: [task] });
  }
  return groups;
}
