// Where a kind's objects live in the API server's URL space (k8s.io/apiserver endpoints/request/requestinfo.go).
import { KUBE_KINDS } from './kube-kinds.ts';
import type { KubeKind } from './kube-kinds.ts';

export const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** `/api/v1/namespaces/{ns}/{plural}[/{name}[/{subresource}]]`, or `/apis/{group}/{version}/…`; names path-encoded. */
export function resourcePath(kind: KubeKind, namespace: string, name?: string, subresource?: 'status' | 'log'): string {
  const k = KUBE_KINDS[kind];
  const root = k.group === '' ? `/api/${k.version}` : `/apis/${k.group}/${k.version}`;
  const collection = `${root}/namespaces/${encodeURIComponent(namespace)}/${k.plural}`;
  if (name === undefined) return collection;
  const object = `${collection}/${encodeURIComponent(name)}`;
  return subresource === undefined ? object : `${object}/${subresource}`;
}
