import type { Catalogue, ImageEntry } from '../catalogue/catalogue.ts';
import type { Receipt } from '../target/receipt.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import { z } from 'zod';
import type { Kube } from '../ports/kube.ts';
import { leasedApplications } from '../ownership/lease-projects.ts';
import { containersOf, workloadEnvironment } from './runtime/workload-env.ts';
import type { WorkloadRef } from '../ownership/workload-replacement.ts';

export interface TakeoverTarget {
  readonly image: ImageEntry;
  readonly command: readonly string[];
  readonly workloads: readonly WorkloadRef[];
  /** The environment of the first workload's container running the image. */
  readonly env: Readonly<Record<string, string>>;
  /** The names the namespace's Services give these workloads: the Docker runtime's network aliases. */
  readonly aliases: readonly string[];
  /** The container of the first workload running the image (Telepresence replaces that one). */
  readonly container: string | undefined;
}

const serviceSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string() }),
  spec: z.looseObject({ selector: z.record(z.string(), z.string()).optional() }).optional(),
});
const podLabelsSchema = z.looseObject({
  spec: z.looseObject({
    template: z.looseObject({
      metadata: z.looseObject({ labels: z.record(z.string(), z.string()).optional() }).optional(),
    }),
  }),
});

/** Pure: the DNS names a cluster gives a Service, for every Service whose selector matches the pod labels. */
export function serviceAliases(
  services: readonly unknown[],
  namespace: string,
  podLabels: Readonly<Record<string, string>>,
): string[] {
  const out: string[] = [];
  for (const raw of services) {
    const service = serviceSchema.safeParse(raw);
    const selector = service.success ? service.data.spec?.selector : undefined;
    if (selector === undefined || Object.keys(selector).length === 0) continue;
    if (!Object.entries(selector).every(([k, v]) => podLabels[k] === v)) continue;
    const name = service.data!.metadata.name;
    out.push(name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`);
  }
  return [...new Set(out)];
}

/**
 * The workloads running each image: in its Application's destination namespace, the Deployments and StatefulSets
 * with a container on the receipt's reference (or the catalogue's `takeover.workload`).
 */
export async function resolveWorkloads(
  kube: Kube,
  argocd: string,
  catalogue: Catalogue,
  receipt: Receipt,
  images: readonly string[],
): Promise<TakeoverTarget[]> {
  const entries = images.map((name) => catalogue.images.find((e) => e.name === name)!);
  for (const e of entries) {
    if (e.application === undefined)
      throw new LeaseError(
        'bad-workload',
        `Cannot take over image "${e.name}": the catalogue declares it "deployed: false", so no Application runs it`,
      );
  }
  const apps = await leasedApplications(kube, argocd, [
    ...new Set(entries.flatMap((e) => (e.application === undefined ? [] : [e.application]))),
  ]);
  const out: TakeoverTarget[] = [];
  for (const image of entries) {
    const app = apps.find((a) => a.name === image.application);
    if (app?.namespace === undefined)
      throw new LeaseError(
        'bad-workload',
        `Cannot take over image "${image.name}": Application "${argocd}/${image.application}" does not exist or has no destination namespace`,
      );
    const reference = receipt.images[image.name]?.reference;
    const workloads: WorkloadRef[] = [];
    let env: Record<string, string> | undefined;
    let containerName: string | undefined;
    const aliases = new Set<string>();
    const services = await kube.list('Service', app.namespace);
    for (const kind of ['Deployment', 'StatefulSet'] as const) {
      for (const object of await kube.list(kind, app.namespace)) {
        const byName = image.takeover?.workload !== undefined && object.metadata.name === image.takeover.workload;
        const container = containersOf(object).find(
          (c) =>
            (image.takeover?.container === undefined || c.name === image.takeover.container) &&
            (byName || c.image === reference),
        );
        if (container === undefined) continue;
        workloads.push({ kind, namespace: app.namespace, name: object.metadata.name });
        env ??= await workloadEnvironment(kube, app.namespace, container);
        containerName ??= container.name;
        const labels = podLabelsSchema.safeParse(object);
        for (const alias of serviceAliases(
          services,
          app.namespace,
          (labels.success ? labels.data.spec.template.metadata?.labels : undefined) ?? {},
        ))
          aliases.add(alias);
      }
    }
    if (workloads.length === 0) {
      throw new LeaseError(
        'bad-workload',
        `Cannot take over image "${image.name}": no Deployment or StatefulSet in namespace "${app.namespace}" runs ${reference ?? 'it'}`,
        { details: { image: image.name } },
      );
    }
    const command = image.takeover?.command ?? [];
    if (command.length === 0 && image.takeover?.runtime !== 'docker')
      throw new LeaseError(
        'not-a-candidate',
        `Cannot take over image "${image.name}": its catalogue entry has no takeover.command`,
      );
    out.push({ image, command, workloads, env: env ?? {}, aliases: [...aliases], container: containerName });
  }
  return out;
}
