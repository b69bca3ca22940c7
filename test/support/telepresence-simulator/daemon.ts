// The simulator's user daemon: one loopback tunnel. The simulated cluster (cluster-side.ts) sends a replaced
// workload's connections through it with a first line naming `<namespace>/<workload>`; the daemon forwards the
// rest to the local runtime the state names. No daemon (after `quit`), no route.
import { renameSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { readState } from './state.ts';

function forward(home: string, client: Socket): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const newline = head.indexOf(10);
    if (newline < 0) return;
    client.off('data', onData);
    client.pause();
    const key = head.subarray(0, newline).toString('utf8');
    const replaced = readState(home).replaced[key];
    const local = replaced?.port?.split(':')[0];
    if (replaced === undefined || local === undefined) {
      client.destroy();
      return;
    }
    const upstream = createConnection(Number(local), replaced.address);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.write(head.subarray(newline + 1));
    client.pipe(upstream).pipe(client);
    client.resume();
  };
  client.on('data', onData);
  client.on('error', () => {});
}

export async function runDaemon(home: string): Promise<void> {
  const server = createServer((client) => forward(home, client));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  // Renamed into place: the CLI and the cluster side never read a half-written file.
  const file = join(home, 'daemon.json');
  writeFileSync(
    `${file}.${process.pid}`,
    JSON.stringify({ pid: process.pid, tunnel: (server.address() as { port: number }).port }),
  );
  renameSync(`${file}.${process.pid}`, file);
  process.on('SIGTERM', () => {
    server.close();
    process.exit(0);
  });
}
