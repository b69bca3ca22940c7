// The simulated cluster's side of Telepresence: each configured Service listens on loopback (always, like a Service
// in the cluster). A connection goes through the workstation daemon's tunnel while the workload is replaced with a
// port, otherwise to the Service's in-cluster backend. A containerized daemon's tunnel (docker-mode.ts) cannot read
// the state: its first line names the replacement's `--address` and local port, which it opens on its own network.
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { readState } from './state.ts';
import type { SimService } from './state.ts';

function tunnelOf(home: string): number | undefined {
  try {
    const { pid, tunnel } = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as {
      pid: number;
      tunnel: number;
    };
    process.kill(pid, 0);
    return tunnel;
  } catch {
    return undefined;
  }
}

function route(home: string, service: SimService, client: Socket): void {
  const key = `${service.namespace}/${service.workload}`;
  const state = readState(home);
  const replaced = state.replaced[key];
  const [local, remote] = replaced?.port?.split(':') ?? [];
  const docker = state.connected?.docker;
  const tunnel = docker === undefined ? tunnelOf(home) : docker.tunnel;
  const viaTunnel =
    replaced !== undefined && remote !== undefined && remote === String(service.port) && tunnel !== undefined;
  const port = viaTunnel ? tunnel : service.backend;
  if (port === undefined) {
    client.destroy();
    return;
  }
  const upstream = createConnection(port, '127.0.0.1');
  if (viaTunnel) upstream.write(docker === undefined ? `${key}\n` : `${replaced!.address} ${local}\n`);
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.pipe(upstream).pipe(client);
}

export async function startClusterSide(home: string, services: readonly SimService[]): Promise<Server[]> {
  const servers: Server[] = [];
  for (const service of services) {
    const server = createServer((client) => route(home, service, client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(service.listen, '127.0.0.1', () => resolve());
    });
    servers.push(server);
  }
  return servers;
}
