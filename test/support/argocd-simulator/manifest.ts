// One rendered Kubernetes object and its identity.
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export function groupOf(m: { apiVersion: string }): string {
  return m.apiVersion.includes('/') ? (m.apiVersion.split('/')[0] as string) : '';
}

export function resourceKey(m: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}): string {
  return `${groupOf(m)}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;
}

export function isManifest(value: unknown): value is Manifest {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const meta = v['metadata'] as Record<string, unknown> | undefined;
  return typeof v['apiVersion'] === 'string' && typeof v['kind'] === 'string' && typeof meta?.['name'] === 'string';
}
