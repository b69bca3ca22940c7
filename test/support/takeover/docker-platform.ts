// What the Docker-runtime takeover suites share: a catalogue where api and worker run with Docker (api on port
// 8080), a "pod in the cluster" answering for api, and the Telepresence simulator forwarding api's Service port, with
// its Docker mode's cluster: a Service `records` in namespace pharos that a container sharing the daemon's network
// reaches by its cluster DNS names.
import { createServer, get as httpGet } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { startTelepresenceSimulator } from '../telepresence-simulator/index.ts';
import type { TelepresenceSimulator } from '../telepresence-simulator/index.ts';

const TOP = resolve(import.meta.dirname, '../../..');

/** The example catalogue with `takeover` for api (Docker, port 8080) and worker (Docker, no port). */
export async function dockerCatalogue(): Promise<string> {
  const doc = parseDocument(await readFile(join(TOP, 'examples/platform/gitops/manifests/images.yaml'), 'utf8'));
  doc.setIn(['images', 'api', 'takeover'], doc.createNode({ runtime: 'docker', port: 8080 }));
  doc.setIn(['images', 'worker', 'target'], 'worker');
  doc.setIn(['images', 'worker', 'takeover'], doc.createNode({ runtime: 'docker' }));
  return doc.toString();
}

/** The example's api manifest with an environment: a value and a Secret key, as the container must receive them. */
export async function apiWithEnvironment(): Promise<string> {
  const text = await readFile(join(TOP, 'examples/platform/gitops/manifests/pharos/api.yaml'), 'utf8');
  const [deployment, ...rest] = text.split(/^---$/m);
  const doc = parseDocument(deployment!);
  doc.setIn(
    ['spec', 'template', 'spec', 'containers', 0, 'env'],
    doc.createNode([
      { name: 'API_MODE', value: 'from-the-cluster' },
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'api-credentials', key: 'token' } } },
    ]),
  );
  const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-credentials\ndata:\n  token: ${Buffer.from('s3cret value').toString('base64')}\n`;
  return [doc.toString(), ...rest, `\n${secret}`].join('---');
}

export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** The cluster Service the Docker-mode suites call from the local container, and what it answers. */
export const RECORDS = { namespace: 'pharos', name: 'records', body: 'records served in the cluster' } as const;

/** `wget` of a URL from inside a container: what a process there gets (busybox wget; its -T crashes, so no -T). */
export async function getFromContainer(container: string, url: string): Promise<{ code: number; out: string }> {
  const result = await exec('docker', ['exec', container, 'wget', '-q', '-O', '-', url], {
    timeoutMs: 20_000,
  });
  return { code: result.code, out: result.stdout.toString('utf8') + result.stderr };
}

export interface ClusterRoute {
  /** The loopback port standing for api's Service in the cluster. */
  readonly port: number;
  readonly telepresence: TelepresenceSimulator;
  get(path: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startClusterRoute(): Promise<ClusterRoute> {
  const pod: Server = createServer((_req, res) => res.end('served by the cluster\n'));
  await new Promise<void>((r) => pod.listen(0, '127.0.0.1', () => r()));
  const port = await freePort();
  const telepresence = await startTelepresenceSimulator(
    [
      {
        namespace: 'pharos',
        workload: 'api',
        port: 8080,
        listen: port,
        backend: (pod.address() as { port: number }).port,
      },
    ],
    { docker: { services: [RECORDS] } },
  );
  return {
    port,
    telepresence,
    // A new TCP connection per request: the route is chosen per connection (as a Service's is), and a kept-alive one
    // from before a replacement would still reach the pod.
    get: (path) =>
      new Promise<string>((resolvePromise, reject) => {
        const request = httpGet({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolvePromise(body));
          response.on('error', reject);
        });
        request.on('timeout', () => request.destroy(new Error(`GET ${path}: no answer within 5 s`)));
        request.on('error', reject);
      }),
    async stop() {
      await telepresence.stop();
      await new Promise<void>((r) => pod.close(() => r()));
    },
  };
}

/** Containers a takeover of `checkout` started (running or not). */
export async function takeoverContainers(checkout: string): Promise<string[]> {
  const result = await exec('docker', [
    'ps',
    '--all',
    '--quiet',
    '--no-trunc',
    '--filter',
    `label=pharos.dev/takeover-checkout=${checkout}`,
  ]);
  return result.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
}

/** Removes what a failed test left: only the containers, network and images of this checkout and target. */
export async function removeTakeoverLeftovers(checkout: string, target: string): Promise<void> {
  const ids = await takeoverContainers(checkout);
  if (ids.length > 0) await exec('docker', ['rm', '--force', ...ids]);
  await exec('docker', ['network', 'rm', `pharos-takeover-${target}`]);
  const images = await exec('docker', [
    'image',
    'ls',
    '--quiet',
    '--filter',
    `label=pharos.dev/takeover-target=${target}`,
  ]);
  const list = [
    ...new Set(
      images.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ),
  ];
  if (list.length > 0) await exec('docker', ['image', 'rm', '--force', ...list]);
}
