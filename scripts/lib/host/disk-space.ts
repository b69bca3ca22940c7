import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TickContext } from './tick-context.ts';

/** containerd's image store: on hosts where Docker uses it, pulls fill this file system too. */
export const CONTAINERD_ROOT = '/var/lib/containerd';

export const GIB = 1024 ** 3;

export function minFreeBytes(config: TickContext['config']): number {
  return config.HEPHAESTUS_MIN_FREE_GIB * GIB;
}

/** Docker's data root, asked once and remembered under cache/ (a `docker info` costs more than the rest of an unchanged tick). */
async function dockerDataRoot(ctx: TickContext): Promise<string | undefined> {
  const file = join(ctx.config.HEPHAESTUS_ROOT, 'cache', 'docker-data-root');
  const known = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (
    known.startsWith('/') &&
    (await access(known).then(
      () => true,
      () => false,
    ))
  )
    return known;
  const root = await ctx.ports.docker.dataRoot().catch(() => undefined);
  if (root !== undefined) await ctx.ports.fs.writeAtomic(file, `${root}\n`, 0o644).catch(() => undefined);
  return root;
}

/** The file systems that hold Docker's data and containerd's image store (the state folder when Docker cannot say). */
export async function imageFileSystems(ctx: TickContext): Promise<string[]> {
  const root = await dockerDataRoot(ctx);
  const containerd = (await access(CONTAINERD_ROOT).then(
    () => true,
    () => false,
  ))
    ? [CONTAINERD_ROOT]
    : [];
  return [...(root === undefined ? [ctx.config.HEPHAESTUS_ROOT] : [root]), ...containerd];
}

/** The least free space among those file systems: what the next pull can use. */
export async function leastFreeBytes(
  ctx: TickContext,
): Promise<{ readonly bytes: number; readonly path: string } | undefined> {
  let least: { bytes: number; path: string } | undefined;
  for (const path of await imageFileSystems(ctx)) {
    const bytes = await ctx.ports.fs.freeBytes(path).catch(() => undefined);
    if (bytes !== undefined && (least === undefined || bytes < least.bytes)) least = { bytes, path };
  }
  return least;
}
