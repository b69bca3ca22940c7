// Where the port sends its requests and with which credentials: a keep-alive agent, the server's URL, auth headers.
import type { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { KubeError } from './kube-error.ts';
import { http } from './node-http.ts';

export interface KubeEndpoint {
  /** `https://host:port` with any path prefix, no trailing slash. */
  readonly server: string;
  readonly agent: HttpAgent;
  readonly headers: Readonly<Record<string, string>>;
}

/** Asked before every request: static credentials answer the same endpoint, client-node's refresh exec tokens. */
export type Connect = () => Promise<KubeEndpoint>;

/** A cluster entry whose files are already read (`certificate-authority` or its `-data`). */
export interface StaticCluster {
  readonly name: string;
  readonly server: string;
  readonly ca?: Buffer;
  readonly skipTlsVerify: boolean;
  readonly tlsServerName?: string;
}

/** A user entry with nothing to run or refresh: a token, a client certificate, or a user name and password. */
export interface StaticUser {
  readonly name: string;
  readonly token?: string;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly username?: string;
  readonly password?: string;
}

// undici's defaults, which client-node's fetch had: 10 s to connect, 300 s without a byte of the answer.
export const CONNECT_TIMEOUT_MS = 10_000;
export const IDLE_TIMEOUT_MS = 300_000;
// Node's own global agent drops an idle kept-alive socket after 5 s, before the API server's own timeout.
const FREE_SOCKET_TIMEOUT_MS = 5_000;

/** The endpoint of static credentials; bad TLS material or plain HTTP without insecure-skip-tls-verify is `config`. */
export function staticEndpoint(cluster: StaticCluster, user: StaticUser | undefined): KubeEndpoint {
  const server = cluster.server.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeError('config', `cluster "${cluster.name}": server ${JSON.stringify(server)} is not a URL`);
  }
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, timeout: FREE_SOCKET_TIMEOUT_MS };
  const headers: Record<string, string> = {};
  if (user?.token !== undefined) headers['Authorization'] = `Bearer ${user.token}`;
  else if (user?.username !== undefined)
    headers['Authorization'] =
      `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`, 'utf8').toString('base64')}`;
  if (url.protocol === 'http:') {
    // client-node's rule, kept: credentials go over plain HTTP only when the kubeconfig says TLS is not wanted.
    if (!cluster.skipTlsVerify)
      throw new KubeError(
        'config',
        `cluster "${cluster.name}": server ${JSON.stringify(server)} is plain HTTP; set insecure-skip-tls-verify: true to use it`,
      );
    return { server, agent: new http.Agent(agentOptions), headers };
  }
  if (url.protocol !== 'https:')
    throw new KubeError(
      'config',
      `cluster "${cluster.name}": server ${JSON.stringify(server)} is neither https:// nor http://`,
    );
  const secureContext = tlsContext(cluster, user);
  return {
    server,
    agent: new HttpsAgent({
      ...agentOptions,
      secureContext,
      rejectUnauthorized: !cluster.skipTlsVerify,
      ...(cluster.tlsServerName === undefined ? {} : { servername: cluster.tlsServerName }),
    }),
    headers,
  };
}

// Built once here so that a PEM that does not parse is a configuration error naming its field, not a failed request.
function tlsContext(cluster: StaticCluster, user: StaticUser | undefined) {
  const { ca } = cluster;
  try {
    // OpenSSL skips a CA it cannot parse without a word: read each certificate of the bundle here.
    if (ca !== undefined) {
      const pems = ca.toString('latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
      if (pems.length === 0) throw new Error('no PEM certificate in it');
      for (const pem of pems) new X509Certificate(pem);
    }
  } catch (error) {
    throw new KubeError(
      'config',
      `cluster "${cluster.name}": certificate-authority is not a usable PEM certificate (${(error as Error).message})`,
      { cause: error },
    );
  }
  const cert = user?.cert;
  const key = user?.key;
  if ((cert === undefined) !== (key === undefined))
    throw new KubeError(
      'config',
      `user "${user?.name}": ${cert === undefined ? 'client-key without client-certificate' : 'client-certificate without client-key'}`,
    );
  try {
    return createSecureContext({
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined || key === undefined ? {} : { cert, key }),
    });
  } catch (error) {
    throw new KubeError(
      'config',
      `user "${user?.name}": client-certificate and client-key are not a usable PEM pair (${(error as Error).message})`,
      { cause: error },
    );
  }
}
