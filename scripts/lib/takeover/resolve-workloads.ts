import type { Catalogue, ImageEntry } from '../catalogue/catalogue.ts';
import type { Receipt } from '../devbox/receipt.ts';
import { LeaseError } from '../lease/lease-error.ts';
import type { Kube } from '../ports/kube.ts';
import { leasedApplications } from './lease-projects.ts';
import { containersOf, workloadEnvironment } from './workload-env.ts';
import type { WorkloadRef } from './workload-replacement.ts';

export interface TakeoverTarget {
  readonly image: ImageEntry;
  readonly command: readonly string[];
  readonly workloads: readonly WorkloadRef[];
  /** The environment of the first workload's container running the image. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The workloads running each image: in its Application's destination namespace, the Deployments and StatefulSets
 * with a container on the receipt's reference (or the catalogue's `takeover.workload`).
 */
export async function resolveWorkloads(kube: Kube, argocd: string, catalogue: Catalogue, receipt: Receipt, images: readonly string[]): Promise<TakeoverTarget[]> {
  const entries = images.map((name) => catalogue.images.find((e) => e.name === name)!);
  for (const e of entries) {
    if (e.application === undefined) throw new LeaseError('bad-workload', `Cannot take over image "${e.name}": the catalogue declares it "deployed: false", so no Application runs it`);
  }
  const apps = await leasedApplications(kube, argocd, [...new Set(entries.flatMap((e) => (e.application === undefined ? [] : [e.application])))]);
  const out: TakeoverTarget[] = [];
  for (const image of entries) {
    const app = apps.find((a) => a.name === image.application);
    if (app?.namespace === undefined) throw new LeaseError('bad-workload', `Cannot take over image "${image.name}": Application "${argocd}/${image.application}" does not exist or has no destination namespace`);
    const reference = receipt.images[image.name]?.reference;
    const workloads: WorkloadRef[] = [];
    let env: Record<string, string> | undefined;
    for (const kind of ['Deployment', 'StatefulSet'] as const) {
      for (const object of await kube.list(kind, app.namespace)) {
        const byName = image.takeover?.workload !== undefined && object.metadata.name === image.takeover.workload;
        const container = containersOf(object).find((c) => (image.takeover?.container === undefined || c.name === image.takeover.container) && (byName || c.image === reference));
        if (container === undefined) continue;
        workloads.push({ kind, namespace: app.namespace, name: object.metadata.name });
        env ??= await workloadEnvironment(kube, app.namespace, container);
      }
    }
    if (workloads.length === 0) {
      throw new LeaseError('bad-workload', `Cannot take over image "${image.name}": no Deployment or StatefulSet in namespace "${app.namespace}" runs ${reference ?? 'it'}`, { details: { image: image.name } });
    }
    const command = image.takeover?.command;
    if (command === undefined) throw new LeaseError('not-a-candidate', `Cannot take over image "${image.name}": its catalogue entry has no takeover.command`);
    out.push({ image, command, workloads, env: env ?? {} });
  }
  return out;
}
