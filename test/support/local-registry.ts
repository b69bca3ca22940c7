// A real registry (`/usr/bin/docker-registry serve`) on a free 127.0.0.1 port with its own storage folder and config.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalRegistry {
  /** `127.0.0.1:<port>`, the host part of image references. */
  readonly host: string;
  /** The manifest digest the registry holds for `<repository>:<tag or digest>`, or undefined. */
  digest(repository: string, reference: string): Promise<string | undefined>;
  /** Tags the registry lists for a repository. */
  tags(repository: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'pharos-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = [
    'version: 0.1',
    'log: {level: error}',
    `storage: {filesystem: {rootdirectory: ${JSON.stringify(join(dir, 'data'))}}, delete: {enabled: true}}`,
    `http: {addr: "${host}", secret: local-test-only}`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'config.yml'), config);
  const child: ChildProcess = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${stderr.trim()}`);
    const ok = await fetch(`http://${host}/v2/`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`docker-registry did not answer on ${host} within 15 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    host,
    async digest(repository, reference) {
      const res = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, { method: 'HEAD', headers: { accept: ACCEPT } });
      return res.ok ? (res.headers.get('docker-content-digest') ?? undefined) : undefined;
    },
    async tags(repository) {
      const res = await fetch(`http://${host}/v2/${repository}/tags/list`);
      if (!res.ok) return [];
      const body = (await res.json()) as { tags?: string[] | null };
      return body.tags ?? [];
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
