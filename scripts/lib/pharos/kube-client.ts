// In a hook Job the client reads the pod's service account; elsewhere a kubeconfig, as kubectl does.
import { KubeError } from '../ports/kube-error.ts';
import { kubeFromConfig, kubeFromFile } from '../ports/kube.ts';
import { loadKubeConfigClass } from '../ports/kube-client-node.ts';
import type { Kube } from '../ports/kube.ts';

export async function kubeForJob(kubeconfig: string | undefined): Promise<Kube> {
  if (kubeconfig !== undefined) return kubeFromFile(kubeconfig);
  // $KUBECONFIG (several files merged), ~/.kube/config, then the in-cluster service account: client-node's search.
  const kc = new (await loadKubeConfigClass())();
  try {
    kc.loadFromDefault();
  } catch (error) {
    throw new KubeError(
      'config',
      `Cannot find Kubernetes credentials: ${(error as Error).message} (pass --kubeconfig, set KUBECONFIG, or run in a pod)`,
      { cause: error },
    );
  }
  if (!kc.getCurrentCluster())
    throw new KubeError(
      'config',
      'Cannot find Kubernetes credentials: no kubeconfig and not in a pod (pass --kubeconfig or set KUBECONFIG)',
    );
  return kubeFromConfig(kc);
}
