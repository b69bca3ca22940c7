// In a hook Job the client reads the pod's service account; elsewhere a kubeconfig, as kubectl does.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeError } from '../ports/kube-error.ts';
import { kubeFromConfig, kubeFromFile } from '../ports/kube.ts';
import type { Kube } from '../ports/kube.ts';

export function kubeForJob(kubeconfig: string | undefined): Kube {
  if (kubeconfig !== undefined) return kubeFromFile(kubeconfig);
  const kc = new KubeConfig();
  try {
    // $KUBECONFIG, ~/.kube/config, then the in-cluster service account.
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
