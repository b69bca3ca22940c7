// The environment a workload's container gets from its spec: values, ConfigMap and Secret keys, envFrom.
import { z } from 'zod';
import type { Kube } from '../../ports/kube.ts';
import type { KubeObject } from '../../ports/kube-kinds.ts';

const keyRef = z.looseObject({ name: z.string(), key: z.string(), optional: z.boolean().optional() });
const envVar = z.looseObject({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z.looseObject({ configMapKeyRef: keyRef.optional(), secretKeyRef: keyRef.optional() }).optional(),
});
const envFrom = z.looseObject({
  prefix: z.string().optional(),
  configMapRef: z.looseObject({ name: z.string() }).optional(),
  secretRef: z.looseObject({ name: z.string() }).optional(),
});
export const containerSchema = z.looseObject({
  name: z.string(),
  image: z.string().optional(),
  env: z.array(envVar).optional(),
  envFrom: z.array(envFrom).optional(),
});
const workloadSchema = z.looseObject({
  spec: z.looseObject({ template: z.looseObject({ spec: z.looseObject({ containers: z.array(containerSchema) }) }) }),
});

export type Container = z.infer<typeof containerSchema>;

export function containersOf(object: KubeObject): Container[] {
  const parsed = workloadSchema.safeParse(object);
  return parsed.success ? parsed.data.spec.template.spec.containers : [];
}

async function dataOf(
  kube: Kube,
  kind: 'ConfigMap' | 'Secret',
  namespace: string,
  name: string,
  cache: Map<string, Record<string, string> | undefined>,
): Promise<Record<string, string> | undefined> {
  const key = `${kind}/${name}`;
  if (!cache.has(key)) {
    const object = await kube.get(kind, namespace, name);
    const raw = (object?.['data'] ?? undefined) as Record<string, string> | undefined;
    cache.set(
      key,
      raw === undefined
        ? undefined
        : kind === 'Secret'
          ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))
          : raw,
    );
  }
  return cache.get(key);
}

/** Resolves what Kubernetes would put in the container's environment (field and resource references are skipped). */
export async function workloadEnvironment(
  kube: Kube,
  namespace: string,
  container: Container,
): Promise<Record<string, string>> {
  const cache = new Map<string, Record<string, string> | undefined>();
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef
      ? (['ConfigMap', from.configMapRef.name] as const)
      : from.secretRef
        ? (['Secret', from.secretRef.name] as const)
        : undefined;
    if (ref === undefined) continue;
    for (const [k, v] of Object.entries((await dataOf(kube, ref[0], namespace, ref[1], cache)) ?? {}))
      env[`${from.prefix ?? ''}${k}`] = v;
  }
  for (const item of container.env ?? []) {
    if (item.value !== undefined) env[item.name] = item.value;
    const cm = item.valueFrom?.configMapKeyRef;
    const secret = item.valueFrom?.secretKeyRef;
    const ref = cm ? (['ConfigMap', cm] as const) : secret ? (['Secret', secret] as const) : undefined;
    if (ref === undefined) continue;
    const value = (await dataOf(kube, ref[0], namespace, ref[1].name, cache))?.[ref[1].key];
    if (value !== undefined) env[item.name] = value;
  }
  return env;
}
