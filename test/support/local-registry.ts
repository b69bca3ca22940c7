// A real registry (`/usr/bin/docker-registry serve`) on a free 127.0.0.1 port in a temp folder of its own,
// removed on stop; the demo's registry module does the work.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRegistry } from '../../scripts/lib/demo/local-registry.ts';

export { freePort };

export interface LocalRegistry {
  /** `127.0.0.1:<port>`, the host part of image references. */
  readonly host: string;
  /** The manifest digest the registry holds for `<repository>:<tag or digest>`, or undefined. */
  digest(repository: string, reference: string): Promise<string | undefined>;
  /** Tags the registry lists for a repository. */
  tags(repository: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'pharos-registry-'));
  const registry = await startRegistry(dir);
  return {
    host: registry.host,
    digest: registry.lookup,
    tags: registry.tags,
    async stop() {
      await registry.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
