import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { MANIFEST_ACCEPT } from '../ports/registry-manifests.ts';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface DemoRegistry {
  /** `127.0.0.1:<port>`, the host part of image references. */
  readonly host: string;
  /** The manifest digest the registry holds for `<repository>:<tag or digest>`; an error when it holds none. */
  digest(repository: string, reference: string): Promise<string>;
  /** The same, or undefined when the registry holds none. */
  lookup(repository: string, reference: string): Promise<string | undefined>;
  /** Tags the registry lists for a repository. */
  tags(repository: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** `/usr/bin/docker-registry serve` on a free loopback port with storage under `dir` (no auth: loopback only). */
export async function startRegistry(dir: string, binary = '/usr/bin/docker-registry'): Promise<DemoRegistry> {
  const host = `127.0.0.1:${await freePort()}`;
  const config = join(dir, 'registry.yml');
  await writeFile(
    config,
    `version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: ${JSON.stringify(join(dir, 'registry'))}}, delete: {enabled: true}}\nhttp: {addr: "${host}", secret: demo-only}\n`,
  );
  const child = spawn(binary, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (error) => reject(new Error(`Cannot start ${binary}: ${error.message}`))),
  );
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${binary} exited ${child.exitCode}: ${stderr.trim()}`);
    const ok = await Promise.race([
      fetch(`http://${host}/v2/`).then(
        (r) => r.ok,
        () => false,
      ),
      failed,
    ]);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${binary} did not answer on ${host} within 15 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const lookup = async (repository: string, reference: string): Promise<string | undefined> => {
    const res = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, {
      method: 'HEAD',
      headers: { accept: MANIFEST_ACCEPT },
    });
    return res.ok ? (res.headers.get('docker-content-digest') ?? undefined) : undefined;
  };
  return {
    host,
    lookup,
    digest: async (repository, reference) => {
      const digest = await lookup(repository, reference);
      if (digest === undefined) throw new Error(`Cannot find ${repository}:${reference} in the registry ${host}`);
      return digest;
    },
    tags: async (repository) => {
      const res = await fetch(`http://${host}/v2/${repository}/tags/list`);
      if (!res.ok) return [];
      const body = (await res.json()) as { tags?: string[] | null };
      return body.tags ?? [];
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
