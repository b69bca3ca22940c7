// The example's local base images, made by the demo's `docker import`: `pharos/base:local` (busybox-static) and
// `pharos/postgres-base:local` (PostgreSQL 15 from this machine's Debian packages). Nothing is pulled.
import { exec } from '../../scripts/lib/ports/exec.ts';
import { BASE_IMAGE, ensureBaseImage as importBaseImage } from '../../scripts/lib/demo/base-image.ts';
import { ensurePostgresBaseImage } from '../../scripts/lib/demo/postgres-base-image.ts';

export { BASE_IMAGE };

/** Fails loudly when Docker is absent: tests that need it must never skip. */
export async function requireDocker(): Promise<void> {
  const info = await exec('docker', ['info', '--format', '{{.ServerVersion}}']).catch((error: Error) => ({
    code: -1,
    stderr: error.message,
    stdout: Buffer.alloc(0),
  }));
  if (info.code !== 0)
    throw new Error(`Docker Engine is required for this test and is not usable: ${info.stderr.trim()}`);
}

/** Imports the example's base images once per machine (the migrate image starts from the PostgreSQL one); later calls find them present. */
export async function ensureBaseImage(tag: string = BASE_IMAGE, busybox = '/bin/busybox'): Promise<string> {
  await requireDocker();
  await importBaseImage(tag, busybox);
  await ensurePostgresBaseImage();
  return tag;
}
