// The simulator's Kubernetes client: plain HTTP to the cluster named by KUBECONFIG's current context (the test API server).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const kubeconfigSchema = z.object({
  'current-context': z.string(),
  contexts: z.array(z.object({ name: z.string(), context: z.object({ cluster: z.string() }) })),
  clusters: z.array(z.object({ name: z.string(), cluster: z.object({ server: z.url() }) })),
});

export type KubeObject = Record<string, unknown> & { metadata: Record<string, unknown> };

/** apiVersion/kind -> the REST path segment, for the kinds a chart here renders. */
const KINDS: Record<string, { readonly prefix: string; readonly plural: string }> = {
  'v1/ConfigMap': { prefix: '/api/v1', plural: 'configmaps' },
  'v1/Secret': { prefix: '/api/v1', plural: 'secrets' },
  'v1/Service': { prefix: '/api/v1', plural: 'services' },
  'v1/ServiceAccount': { prefix: '/api/v1', plural: 'serviceaccounts' },
  'v1/PersistentVolumeClaim': { prefix: '/api/v1', plural: 'persistentvolumeclaims' },
  'v1/Pod': { prefix: '/api/v1', plural: 'pods' },
  'apps/v1/Deployment': { prefix: '/apis/apps/v1', plural: 'deployments' },
  'apps/v1/StatefulSet': { prefix: '/apis/apps/v1', plural: 'statefulsets' },
  'batch/v1/Job': { prefix: '/apis/batch/v1', plural: 'jobs' },
  'networking.k8s.io/v1/NetworkPolicy': { prefix: '/apis/networking.k8s.io/v1', plural: 'networkpolicies' },
};

export class KubeClient {
  readonly server: string;

  constructor(kubeconfigPath: string | undefined) {
    if (kubeconfigPath === undefined || kubeconfigPath === '')
      throw new Error('Kubernetes cluster unreachable: KUBECONFIG is not set');
    const raw: unknown = parse(readFileSync(kubeconfigPath, 'utf8'));
    const config = kubeconfigSchema.parse(raw);
    const context = config.contexts.find((c) => c.name === config['current-context']);
    const cluster = config.clusters.find((c) => c.name === context?.context.cluster);
    if (cluster === undefined)
      throw new Error(`Kubernetes cluster unreachable: no cluster for context "${config['current-context']}"`);
    this.server = cluster.cluster.server.replace(/\/+$/, '');
  }

  path(apiVersion: string, kind: string, namespace: string, name?: string): string {
    const type = KINDS[`${apiVersion}/${kind}`];
    if (type === undefined) throw new Error(`resource mapping not found for kind "${kind}" in version "${apiVersion}"`);
    return `${type.prefix}/namespaces/${namespace}/${type.plural}${name === undefined ? '' : `/${name}`}`;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${this.server}${path}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((cause: Error) => {
      throw new Error(`Kubernetes cluster unreachable: ${cause.message}`);
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  async get(path: string): Promise<KubeObject | undefined> {
    const r = await this.request('GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${String(r.body.message ?? '')}`);
    return r.body as KubeObject;
  }

  async list(path: string, labelSelector: string): Promise<KubeObject[]> {
    const r = await this.request('GET', `${path}?labelSelector=${encodeURIComponent(labelSelector)}`);
    if (r.status !== 200) throw new Error(`LIST ${path}: ${r.status} ${String(r.body.message ?? '')}`);
    return (r.body.items as KubeObject[] | undefined) ?? [];
  }

  /** Create, or replace the live object keeping its resourceVersion (a client-side apply, simplified to a replace). */
  async apply(namespace: string, object: KubeObject): Promise<void> {
    const name = String(object.metadata.name);
    const path = this.path(String(object.apiVersion), String(object.kind), namespace, name);
    const live = await this.get(path);
    const body = {
      ...object,
      metadata: {
        ...object.metadata,
        namespace,
        ...(live === undefined ? {} : { resourceVersion: live.metadata.resourceVersion }),
      },
    };
    const r =
      live === undefined
        ? await this.request('POST', this.path(String(object.apiVersion), String(object.kind), namespace), body)
        : await this.request('PUT', path, body);
    if (r.status >= 300)
      throw new Error(
        `${live === undefined ? 'create' : 'update'} ${String(object.kind)} "${name}": ${String(r.body.message ?? r.status)}`,
      );
  }

  async remove(path: string): Promise<void> {
    const r = await this.request('DELETE', path, { propagationPolicy: 'Background' });
    if (r.status >= 300 && r.status !== 404)
      throw new Error(`DELETE ${path}: ${r.status} ${String(r.body.message ?? '')}`);
  }
}
