// The Kube port: namespaced reads and compare-and-swap writes over HTTP(S); @kubernetes/client-node is loaded only
// for credentials it alone handles (kube-client-node.ts), since loading it costs more than a whole command.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeError } from './kube-error.ts';
import { clientNodeConnect, loadKubeConfigClass } from './kube-client-node.ts';
import { readKubeconfig } from './kube-config.ts';
import { staticEndpoint } from './kube-endpoint.ts';
import type { Connect, StaticCluster, StaticUser } from './kube-endpoint.ts';
import { kubeOverHttp } from './kube-http.ts';
import type { Kube } from './kube-port.ts';

export type { DeleteOptions, Kube, ListOptions, UserInfo } from './kube-port.ts';

/** The port for `path`'s current (or named) context; a file it cannot use throws KubeError `config` now. */
export function kubeFromFile(path: string, context?: string): Kube {
  const plan = readKubeconfig(path, context);
  if (plan.kind === 'library')
    return kubeOverHttp(
      clientNodeConnect(async () => {
        const kc = new (await loadKubeConfigClass())();
        try {
          kc.loadFromFile(path);
          if (context !== undefined) kc.setCurrentContext(context);
        } catch (error) {
          throw new KubeError('config', `Cannot load kubeconfig "${path}": ${(error as Error).message}`, {
            details: { path },
            cause: error,
          });
        }
        return kc;
      }),
    );
  let connect: Connect;
  try {
    const endpoint = staticEndpoint(plan.cluster, plan.user);
    connect = async () => endpoint;
  } catch (error) {
    throw new KubeError('config', `Cannot use kubeconfig "${path}": ${(error as Error).message}`, {
      details: { path },
      cause: error,
    });
  }
  return kubeOverHttp(connect);
}

/** The port for a KubeConfig object (tests, hook Jobs): its static credentials read here, the rest by client-node. */
export function kubeFromConfig(kc: KubeConfig): Kube {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubeError('config', 'Cannot use the Kubernetes client config: no current cluster');
  const user = kc.getCurrentUser();
  if (cluster.proxyUrl || user?.exec || user?.authProvider || user?.impersonateUser)
    return kubeOverHttp(clientNodeConnect(async () => kc));
  const material = (file: string | undefined, data: string | undefined) =>
    file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined;
  const ca = material(cluster.caFile, cluster.caData);
  const staticCluster: StaticCluster = {
    name: cluster.name,
    server: cluster.server,
    skipTlsVerify: cluster.skipTLSVerify,
    ...(ca === undefined ? {} : { ca }),
    ...(cluster.tlsServerName ? { tlsServerName: cluster.tlsServerName } : {}),
  };
  let staticUser: StaticUser | undefined;
  if (user !== null) {
    const cert = material(user.certFile, user.certData);
    const key = material(user.keyFile, user.keyData);
    staticUser = {
      name: user.name,
      ...(user.token ? { token: user.token } : {}),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      ...(user.username ? { username: user.username, password: user.password ?? '' } : {}),
    };
  }
  const endpoint = staticEndpoint(staticCluster, staticUser);
  return kubeOverHttp(async () => endpoint);
}
