import type { Kube } from '../ports/kube.ts';
import { isConflict } from '../ports/kube-error.ts';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'pharos-deploy' } as const;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The Secret's keys as text (undefined when it does not exist). */
export async function readSecretData(
  kube: Kube,
  namespace: string,
  name: string,
): Promise<{ data: Record<string, string>; resourceVersion: string | undefined } | undefined> {
  const found = await kube.get('Secret', namespace, name);
  if (found === undefined) return undefined;
  const raw = (found['data'] as Record<string, string> | undefined) ?? {};
  return {
    data: Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')]),
    ),
    resourceVersion: found.metadata.resourceVersion,
  };
}

/**
 * Creates or replaces (compare-and-swap on resourceVersion, re-read on 409) an Opaque Secret whose keys are `data`;
 * keys the Secret has beyond these are kept. Says what it did; values are never logged.
 */
export async function writeSecretKeys(
  kube: Kube,
  namespace: string,
  name: string,
  data: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, string>> = {},
): Promise<'created' | 'updated' | 'unchanged'> {
  for (let attempt = 1; ; attempt++) {
    const current = await readSecretData(kube, namespace, name);
    if (current !== undefined && Object.entries(data).every(([k, v]) => current.data[k] === v)) return 'unchanged';
    const merged = { ...(current?.data ?? {}), ...data };
    const object = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name,
        namespace,
        labels: { ...MANAGED_BY },
        annotations: { ...annotations },
        ...(current?.resourceVersion === undefined ? {} : { resourceVersion: current.resourceVersion }),
      },
      data: Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, b64(v)])),
    };
    try {
      if (current === undefined) await kube.create('Secret', namespace, object);
      else await kube.replace('Secret', namespace, object);
      return current === undefined ? 'created' : 'updated';
    } catch (error) {
      const exists = (error as { code?: string }).code === 'already-exists';
      if ((isConflict(error) || exists) && attempt < 5) continue;
      throw error;
    }
  }
}
