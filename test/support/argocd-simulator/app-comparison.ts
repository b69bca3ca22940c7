// Compares rendered manifests with live objects: the Application's sync status, resource list and health.
import type { Application } from '../../../scripts/lib/argocd/index.ts';
import type { GenericClient } from './generic-client.ts';
import { ignoredPointers, withoutPointers } from './ignore-differences.ts';
import type { Manifest } from './manifest.ts';
import { groupOf, resourceKey } from './manifest.ts';
import { TRACKING_ANNOTATION, inSync } from './resource-diff.ts';
import { resourceHealth, worse } from './resource-health.ts';
import type { Health, HealthStatus } from './resource-health.ts';

export interface ResourceStatus {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status: 'Synced' | 'OutOfSync';
  health?: Health;
  requiresPruning?: boolean;
}

export interface Comparison {
  readonly sync: 'Synced' | 'OutOfSync';
  readonly health: Health;
  readonly resources: ResourceStatus[];
  readonly images: string[];
}

export function trackingId(app: string, m: Manifest): string {
  return `${app}:${groupOf(m)}/${m.kind}:${m.metadata.namespace ?? ''}/${m.metadata.name}`;
}

export function refOf(r: ResourceStatus): Manifest {
  return {
    apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`,
    kind: r.kind,
    metadata: { name: r.name, namespace: r.namespace },
  };
}

function collectImages(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectImages(n, out));
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'containers' || k === 'initContainers') && Array.isArray(v))
        for (const c of v) if (typeof c?.image === 'string') out.add(c.image);
      collectImages(v, out);
    }
  }
}

/** `previous`: the resources the app tracked before; those no longer rendered but still live need pruning. */
export async function compare(
  client: GenericClient,
  application: Application,
  desired: readonly Manifest[],
  previous: readonly ResourceStatus[],
): Promise<Comparison> {
  const app = application.metadata.name;
  const resources: ResourceStatus[] = [];
  let health: HealthStatus = 'Healthy';
  const images = new Set<string>();
  const keys = new Set(desired.map(resourceKey));
  for (const m of desired) {
    const live = await client.read(m);
    const version = m.apiVersion.includes('/') ? (m.apiVersion.split('/')[1] as string) : m.apiVersion;
    const h = resourceHealth(m.kind, live as Parameters<typeof resourceHealth>[1]);
    health = worse(health, h.status);
    const ignored = ignoredPointers(application, m);
    const synced = live !== undefined && inSync(withoutPointers(m, ignored), withoutPointers(live, ignored));
    resources.push({
      group: groupOf(m),
      version,
      kind: m.kind,
      namespace: m.metadata.namespace ?? '',
      name: m.metadata.name,
      status: synced ? 'Synced' : 'OutOfSync',
      health: h,
    });
    collectImages(live ?? m, images);
  }
  for (const old of previous) {
    const ref = refOf(old);
    if (keys.has(resourceKey(ref))) continue;
    const live = await client.read(ref);
    if (live?.metadata.annotations?.[TRACKING_ANNOTATION] === trackingId(app, ref)) {
      resources.push({ ...old, status: 'OutOfSync', requiresPruning: true });
    }
  }
  const sync = resources.every((r) => r.status === 'Synced') ? 'Synced' : 'OutOfSync';
  return { sync, health: { status: health }, resources, images: [...images].sort() };
}
