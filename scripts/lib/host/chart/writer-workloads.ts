import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Kube } from '../../ports/kube.ts';
import type { KubeObject } from '../../ports/kube-kinds.ts';

/** Workloads that write to the database; a cutover waits until none of them runs in the release namespace. */
export const WRITER_SELECTOR = 'hephaestus.role in (server,worker,sandbox)';

const count = (v: unknown) => (typeof v === 'number' ? v : 0);
const name = (o: KubeObject) => String(o.metadata.name);

/** The writers still running: Deployments or StatefulSets with Pods, and Pods not yet Succeeded or Failed. Pure. */
export function runningWriters(controllers: readonly KubeObject[], pods: readonly KubeObject[]): string[] {
  const out: string[] = [];
  for (const c of controllers) {
    const status = (c.status ?? {}) as { replicas?: unknown; readyReplicas?: unknown };
    const n = Math.max(count(status.replicas), count(status.readyReplicas));
    if (n > 0) out.push(`${String(c.kind ?? 'workload')} ${name(c)} (${n} Pod${n === 1 ? '' : 's'})`);
  }
  for (const p of pods) {
    const phase = (p.status as { phase?: string } | undefined)?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed')
      out.push(`Pod ${name(p)}${phase === undefined ? '' : ` (${phase})`}`);
  }
  return out;
}

/** Reads the release namespace through the Kube port (the kubeconfig of HEPHAESTUS_CHART settings, else KUBECONFIG, else ~/.kube/config). */
export async function remainingWriters(
  kubeconfig: string | undefined,
  namespace: string,
  open?: (path: string) => Kube,
): Promise<string[]> {
  const path = kubeconfig ?? process.env.KUBECONFIG ?? join(homedir(), '.kube', 'config');
  const kube = open === undefined ? (await import('../../ports/kube.ts')).kubeFromFile(path) : open(path);
  const selector = { labelSelector: WRITER_SELECTOR };
  const [deployments, statefulSets, pods] = await Promise.all([
    kube.list('Deployment', namespace, selector),
    kube.list('StatefulSet', namespace, selector),
    kube.list('Pod', namespace, selector),
  ]);
  return runningWriters(
    [
      ...deployments.map((d) => ({ ...d, kind: 'Deployment' })),
      ...statefulSets.map((s) => ({ ...s, kind: 'StatefulSet' })),
    ],
    pods,
  );
}
