// HTTPS in front of the test API server, as k3s serves it: TLS with a private CA, a client certificate required;
// each request goes on to the plain-HTTP simulator.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

/** PEM files of a throwaway CA, a server certificate for `kube.test` only and a client certificate, made with openssl. */
export interface TestPki {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

export function makeTestPki(dir: string, clientName = 'system:admin'): TestPki {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (file: string) =>
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file);
  key('ca.key');
  openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=test-ca', '-days', '2', '-out', 'ca.crt');
  const issue = (name: string, subject: string, extensions: string) => {
    key(`${name}.key`);
    openssl('req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  issue('server', '/CN=kube-apiserver', 'subjectAltName=DNS:kube.test\nextendedKeyUsage=serverAuth\n');
  issue('client', `/O=system:masters/CN=${clientName}`, 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
  };
}

export interface TlsFront {
  /** `https://127.0.0.1:<port>`: its certificate names `kube.test`, so clients need tls-server-name. */
  readonly url: string;
  /** The subject CN of the client certificate of each request, in order. */
  readonly clients: readonly string[];
  close(): Promise<void>;
}

/**
 * `identities` maps a client certificate's CN to a token of the simulator, which knows only bearer tokens: a request
 * without an Authorization header is sent on as that user, as k3s authenticates its admin kubeconfig's certificate.
 */
export async function startTlsFront(
  pki: TestPki,
  backendUrl: string,
  identities: Readonly<Record<string, string>> = {},
): Promise<TlsFront> {
  const clients: string[] = [];
  const server = createServer(
    {
      cert: readFileSync(pki.serverCert),
      key: readFileSync(pki.serverKey),
      ca: readFileSync(pki.caCert),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const cn = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
      clients.push(cn);
      const headers = { ...req.headers };
      const token = identities[cn];
      if (headers.authorization === undefined && token !== undefined) headers.authorization = `Bearer ${token}`;
      const forward = request(`${backendUrl}${req.url ?? '/'}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', (error) => res.destroy(error));
      req.pipe(forward);
    },
  );
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('TLS front has no TCP address');
  return {
    url: `https://127.0.0.1:${address.port}`,
    clients,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
