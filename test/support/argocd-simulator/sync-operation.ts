// Runs one sync: apply every rendered manifest (create, or update the fields it sets), then prune if asked.
import type { Application } from '../../../scripts/lib/argocd/index.ts';
import type { GenericClient } from './generic-client.ts';
import { ignoredPointers, keepLiveValues } from './ignore-differences.ts';
import type { Manifest } from './manifest.ts';
import { groupOf, resourceKey } from './manifest.ts';
import { TRACKING_ANNOTATION, inSync } from './resource-diff.ts';
import { refOf, trackingId } from './app-comparison.ts';
import type { ResourceStatus } from './app-comparison.ts';

export type ResourceResult = {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status: 'Synced' | 'Pruned';
  message: string;
};

// Argo CD applies in kind order so that what workloads mount exists first.
const KIND_ORDER = [
  'Namespace',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'PersistentVolumeClaim',
  'Service',
  'Deployment',
  'StatefulSet',
  'Job',
  'AppProject',
  'Application',
];
const rank = (kind: string) => (KIND_ORDER.includes(kind) ? KIND_ORDER.indexOf(kind) : KIND_ORDER.length - 2);

const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';

function forceReplace(application: Application, m: Manifest): boolean {
  const options = [
    ...(application.spec.syncPolicy?.syncOptions ?? []),
    ...(m.metadata.annotations?.[SYNC_OPTIONS]?.split(',') ?? []),
  ].map((o) => o.trim());
  return options.includes('Force=true') && options.includes('Replace=true');
}

function withTracking(app: string, m: Manifest): Manifest {
  return {
    ...m,
    metadata: { ...m.metadata, annotations: { ...m.metadata.annotations, [TRACKING_ANNOTATION]: trackingId(app, m) } },
  };
}

export async function applyManifests(
  client: GenericClient,
  application: Application,
  desired: readonly Manifest[],
  prune: readonly ResourceStatus[],
): Promise<ResourceResult[]> {
  const app = application.metadata.name;
  const respectIgnored = (application.spec.syncPolicy?.syncOptions ?? []).includes('RespectIgnoreDifferences=true');
  const results: ResourceResult[] = [];
  // CreateNamespace=true: the destination namespace is created first when missing; without it a sync into a
  // namespace that does not exist fails, as on a real cluster.
  const destination = application.spec.destination.namespace;
  if (
    destination !== undefined &&
    destination !== '' &&
    (application.spec.syncPolicy?.syncOptions ?? []).includes('CreateNamespace=true')
  ) {
    const ns: Manifest = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: destination } };
    if ((await client.read(ns)) === undefined) {
      await client.create(ns);
      results.push({
        group: '',
        version: 'v1',
        kind: 'Namespace',
        namespace: '',
        name: destination,
        status: 'Synced',
        message: `namespace/${destination} created`,
      });
    }
  }
  const ordered = [...desired].sort((a, b) => rank(a.kind) - rank(b.kind));
  for (const rendered of ordered) {
    const version = rendered.apiVersion.includes('/')
      ? (rendered.apiVersion.split('/')[1] as string)
      : rendered.apiVersion;
    const base = {
      group: groupOf(rendered),
      version,
      kind: rendered.kind,
      namespace: rendered.metadata.namespace ?? '',
      name: rendered.metadata.name,
    };
    const live = await client.read(rendered);
    const m = respectIgnored ? keepLiveValues(rendered, live, ignoredPointers(application, rendered)) : rendered;
    const tracked = withTracking(app, m);
    if (live === undefined) {
      await client.create(tracked);
      results.push({ ...base, status: 'Synced', message: `${m.kind.toLowerCase()}/${m.metadata.name} created` });
    } else if (!inSync(tracked, live) && forceReplace(application, m)) {
      // Force=true,Replace=true: delete and create again, the way to change immutable fields (Job templates).
      await client.delete(live, { propagationPolicy: 'Background', wait: true });
      await client.create(tracked);
      results.push({ ...base, status: 'Synced', message: `${m.kind.toLowerCase()}/${m.metadata.name} replaced` });
    } else if (!inSync(tracked, live)) {
      // Like kubectl apply: the manifest's fields win, fields it does not set (status, operation) stay.
      const { metadata: _lm, ...liveRest } = live;
      const { metadata: _tm, ...desiredRest } = tracked;
      await client.replace({
        ...liveRest,
        ...desiredRest,
        metadata: {
          ...live.metadata,
          labels: { ...live.metadata.labels, ...m.metadata.labels },
          annotations: { ...live.metadata.annotations, ...tracked.metadata.annotations },
        },
      } as Manifest);
      results.push({ ...base, status: 'Synced', message: `${m.kind.toLowerCase()}/${m.metadata.name} configured` });
    } else {
      results.push({ ...base, status: 'Synced', message: `${m.kind.toLowerCase()}/${m.metadata.name} unchanged` });
    }
  }
  const keys = new Set(desired.map(resourceKey));
  for (const old of prune) {
    const ref = refOf(old);
    if (keys.has(resourceKey(ref))) continue;
    // Argo CD prunes with foreground propagation by default (PrunePropagationPolicy=foreground).
    await client.delete(ref, { propagationPolicy: 'Foreground' });
    results.push({
      group: old.group,
      version: old.version,
      kind: old.kind,
      namespace: old.namespace,
      name: old.name,
      status: 'Pruned',
      message: 'pruned',
    });
  }
  return results;
}
