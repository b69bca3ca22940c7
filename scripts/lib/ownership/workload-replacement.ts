// Port: how a leased workload makes way for a local runtime. Scale-to-zero (here) is the fallback; Telepresence
// (takeover/telepresence-replacement.ts) routes the workload's port to the local runtime.
import { z } from 'zod';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import { LeaseError } from './lease-error.ts';
import { isConflict } from '../ports/kube-error.ts';

export const REPLACED_ANNOTATION = 'pharos.dev/takeover';
export const REPLACED_LABEL = 'pharos.dev/takeover-replaced';

export interface WorkloadRef {
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly namespace: string;
  readonly name: string;
}

/** Where the workload's traffic goes instead: the local runtime's loopback port. */
export interface Route {
  readonly localPort: number;
  /** The workload's port (`takeover.port`). */
  readonly remotePort: number;
  readonly container?: string;
}

/** What a replacement changed, journaled so a hand-back (even from another process) undoes exactly that. */
export interface Replacement {
  readonly workload: WorkloadRef;
  readonly lease: string;
  /** The port that made it; `scale-to-zero` when absent (journals written before Telepresence). */
  readonly via?: string;
  /** Scale-to-zero: the replica count to restore. */
  readonly replicas?: number;
  /** Telepresence: `<local>:<remote>`. */
  readonly port?: string;
}

export interface WorkloadReplacement {
  readonly name: string;
  replace(workload: WorkloadRef, lease: string, route?: Route): Promise<Replacement>;
  /** Restores one workload; true when something was changed. */
  restore(replacement: Replacement): Promise<boolean>;
  /** Replacements of `lease` found in the cluster (the journal may be another workstation's). */
  find(namespaces: readonly string[], lease: string): Promise<Replacement[]>;
  /** Traffic agents left in the namespaces (Telepresence); removing them reconnects to each namespace. */
  agents?(namespaces: readonly string[]): Promise<Readonly<Record<string, readonly string[]>>>;
  /** Removes every agent of one namespace (namespace-scoped uninstall); returns the workloads whose agent went. */
  removeAgents?(namespace: string): Promise<string[]>;
  /**
   * Ends every replacement in one namespace, whoever's connection made it, then removes its agents: the clean-up of
   * an expired lease whose holder is gone. Returns what it ended.
   */
  clear?(namespace: string): Promise<string[]>;
}

export const viaOf = (replacement: Replacement): string => replacement.via ?? 'scale-to-zero';

const marker = z.strictObject({ lease: z.string(), replicas: z.number().int().min(0) });

function markerOf(object: KubeObject): z.infer<typeof marker> | undefined {
  const text = object.metadata.annotations?.[REPLACED_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const parsed = marker.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const replicasOf = (object: KubeObject) => {
  const value = (object['spec'] as { replicas?: unknown } | undefined)?.replicas;
  return typeof value === 'number' ? value : 1;
};

// The workload controllers write status all the time: a 409 means read again and redo, never overwrite.
async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isConflict(error) || attempt >= 8) throw error;
    }
  }
}

/** Scale to zero, keeping the original replica count on the workload itself (annotation) and in the journal. */
export function scaleToZero(kube: Kube): WorkloadReplacement {
  return {
    name: 'scale-to-zero',
    replace: (workload, lease) =>
      retrying(async () => {
        const object = await kube.get(workload.kind, workload.namespace, workload.name);
        if (object === undefined)
          throw new LeaseError(
            'bad-workload',
            `Cannot replace ${workload.kind} "${workload.namespace}/${workload.name}": it does not exist`,
          );
        const existing = markerOf(object);
        if (existing !== undefined && existing.lease === lease)
          return { workload, lease, via: 'scale-to-zero', replicas: existing.replicas };
        const replicas = existing?.replicas ?? replicasOf(object);
        await kube.mergePatch(workload.kind, workload.namespace, workload.name, {
          metadata: {
            resourceVersion: object.metadata.resourceVersion,
            labels: { [REPLACED_LABEL]: 'true' },
            annotations: { [REPLACED_ANNOTATION]: JSON.stringify({ lease, replicas }) },
          },
          spec: { replicas: 0 },
        });
        return { workload, lease, via: 'scale-to-zero', replicas };
      }),
    restore: (replacement) =>
      retrying(async () => {
        const { workload } = replacement;
        const object = await kube.get(workload.kind, workload.namespace, workload.name);
        if (object === undefined) return false;
        const existing = markerOf(object);
        // Another lease's replacement is not ours to undo.
        if (existing === undefined || existing.lease !== replacement.lease) return false;
        await kube.mergePatch(workload.kind, workload.namespace, workload.name, {
          metadata: {
            resourceVersion: object.metadata.resourceVersion,
            labels: { [REPLACED_LABEL]: null },
            annotations: { [REPLACED_ANNOTATION]: null },
          },
          spec: { replicas: existing.replicas },
        });
        return true;
      }),
    async find(namespaces, lease) {
      const out: Replacement[] = [];
      for (const namespace of [...new Set(namespaces)].sort()) {
        for (const kind of ['Deployment', 'StatefulSet'] as const) {
          for (const object of await kube.list(kind, namespace, { labelSelector: `${REPLACED_LABEL}=true` })) {
            const found = markerOf(object);
            if (found !== undefined && found.lease === lease)
              out.push({
                workload: { kind, namespace, name: object.metadata.name },
                lease,
                via: 'scale-to-zero',
                replicas: found.replicas,
              });
          }
        }
      }
      return out;
    },
  };
}
