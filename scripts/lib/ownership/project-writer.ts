// The project-writer fence lets only the bootstrap administrator change AppProject sync windows: takeover confirms it
// writes as that identity before it records or windows anything, instead of failing half-way at the admission policy.
import { z } from 'zod';
import { LeaseError } from './lease-error.ts';
import type { Kube, UserInfo } from '../ports/kube.ts';
import { KubeError } from '../ports/kube-error.ts';

/** The fence's parameter ConfigMap (gitops/manifests/bootstrap/project-writer.yaml), in Argo CD's namespace. */
export const PROJECT_WRITER = 'pharos-project-writer';

const FenceParams = z.object({ data: z.object({ administrator: z.string().min(1) }) });

export type WriterCheck =
  | { readonly kind: 'administrator'; readonly username: string }
  | { readonly kind: 'no-fence' }
  | { readonly kind: 'refuse'; readonly username: string; readonly administrator: string };

/** Pure: who may write windows against who this client is. */
export function decideWriter(administrator: string, username: string): WriterCheck {
  return administrator === username ? { kind: 'administrator', username } : { kind: 'refuse', username, administrator };
}

export async function readFenceAdministrator(kube: Kube, namespace: string): Promise<string | undefined> {
  const params = await kube.get('ConfigMap', namespace, PROJECT_WRITER);
  if (params === undefined) return undefined;
  const parsed = FenceParams.safeParse(params);
  if (!parsed.success) {
    const value = JSON.stringify((params['data'] as Record<string, unknown> | undefined)?.['administrator']);
    throw new LeaseError(
      'project-writer',
      `ConfigMap "${namespace}/${PROJECT_WRITER}": field data.administrator must name the bootstrap administrator, got ${value ?? 'nothing'}`,
      { details: { namespace } },
    );
  }
  return parsed.data.data.administrator;
}

/** Refuses (exit 2) when the fence is installed and this kubeconfig is not its administrator; returns what was found. */
export async function checkProjectWriter(
  kube: Kube,
  namespace: string,
  target: string,
  action = 'take over',
): Promise<WriterCheck> {
  const administrator = await readFenceAdministrator(kube, namespace);
  if (administrator === undefined) return { kind: 'no-fence' };
  const user = await whoAmI(kube, target, action);
  const check = decideWriter(administrator, user.username);
  if (check.kind === 'refuse') {
    throw new LeaseError(
      'project-writer',
      `Cannot ${action} on target "${target}": this kubeconfig authenticates as "${check.username}", but the project-writer fence (ConfigMap "${namespace}/${PROJECT_WRITER}") lets only "${check.administrator}" write AppProject sync windows; use the bootstrap administrator's kubeconfig (kube.kubeconfig in the target profile)`,
      { details: { target, username: check.username, administrator: check.administrator } },
    );
  }
  return check;
}

async function whoAmI(kube: Kube, target: string, action: string): Promise<UserInfo> {
  try {
    return await kube.whoAmI();
  } catch (error) {
    if (!(error instanceof KubeError) || error.code !== 'not-found') throw error;
    throw new LeaseError(
      'project-writer',
      `Cannot ${action} on target "${target}": the project-writer fence is installed, but the API server cannot say who this kubeconfig is (no authentication.k8s.io/v1 SelfSubjectReview: Kubernetes 1.28 or later has it)`,
      { details: { target }, cause: error },
    );
  }
}
