// What every simulated Helm action works on: the cluster, the release history in the namespace, and the clock.
import type { KubeClient } from './kube-client.ts';
import { ReleaseStore } from './release-store.ts';

export interface Session {
  readonly kube: KubeClient;
  readonly store: ReleaseStore;
  readonly namespace: string;
}

export function session(kube: KubeClient, namespace: string): Session {
  return { kube, store: new ReleaseStore(kube, namespace), namespace };
}

/** Helm stamps revisions with time.Now(); the simulator stores it in UTC. */
export const now = () => new Date().toISOString();
