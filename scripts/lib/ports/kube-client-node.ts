// The hard cases (exec plugins, auth providers, proxies, impersonation, in-cluster accounts) through client-node,
// loaded only when a kubeconfig asks for them: the library owns its credentials and agent, this port the requests.
import type { Agent } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Connect } from './kube-endpoint.ts';

/** client-node's KubeConfig class, loaded on first use (its module graph costs ~0.4 s of CPU). */
export async function loadKubeConfigClass(): Promise<typeof KubeConfig> {
  return (await import('@kubernetes/client-node')).KubeConfig;
}

/** Before each request: client-node's TLS agent and headers for the current context (exec tokens refresh there). */
export function clientNodeConnect(load: () => Promise<KubeConfig>): Connect {
  let loading: Promise<KubeConfig> | undefined;
  return async () => {
    loading ??= load();
    const kc = await loading;
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error('the kubeconfig has no current cluster');
    const options: { headers?: Record<string, string>; agent?: Agent; auth?: string } = { headers: {} };
    await kc.applyToHTTPSOptions(options as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
    const headers: Record<string, string> = { ...options.headers };
    // node:http's rule for `auth` beside an Authorization header: the header wins.
    if (options.auth !== undefined && headers['Authorization'] === undefined)
      headers['Authorization'] = `Basic ${Buffer.from(options.auth, 'utf8').toString('base64')}`;
    if (options.agent === undefined) throw new Error('client-node made no agent for the cluster');
    return { server: cluster.server.replace(/\/+$/, ''), agent: options.agent, headers };
  };
}
