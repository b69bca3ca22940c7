import { ApplyError } from './apply-error.ts';
import type { Step } from './tick-context.ts';

const GIB = 1024 ** 3;
const PULL_TIMEOUT_MS = 30 * 60 * 1000;
const MIGRATION_TIMEOUT_MS = 60 * 60 * 1000;

/** Step 5: pull every image that is not present, by digest; no container starts, so the running release keeps working. */
export const pullImages: Step = async (ctx, state) => {
  const { config, ports } = ctx;
  const free = await ports.fs.freeBytes(config.HEPHAESTUS_ROOT).catch(() => undefined);
  if (free !== undefined && free < config.HEPHAESTUS_MIN_FREE_GIB * GIB) {
    throw new ApplyError('disk-space', `Cannot pull: ${(free / GIB).toFixed(1)} GiB free under "${config.HEPHAESTUS_ROOT}", HEPHAESTUS_MIN_FREE_GIB is ${config.HEPHAESTUS_MIN_FREE_GIB}`);
  }
  const images = [...new Set(state.stacks.flatMap((s) => s.services.map((svc) => svc.image ?? '')))].filter((i) => i !== '').sort();
  let pulled = 0;
  for (const image of images) {
    if (await ports.docker.imagePresent(image)) continue;
    try {
      await ports.docker.pull(image, PULL_TIMEOUT_MS);
    } catch (cause) {
      throw new ApplyError('pull-failed', (cause as Error).message, { cause, details: { image } });
    }
    pulled += 1;
  }
  return { next: true, fields: { images: images.length, pulled } };
};

/** Step 6: the new release's migration (`hephaestus.role=migration`) runs once while the previous release still runs every role. */
export const runMigrations: Step = async (ctx, state) => {
  const ran: string[] = [];
  for (const { stack, project, services } of state.stacks) {
    for (const service of services.filter((s) => s.role === 'migration')) {
      const result = await ctx.ports.compose.runOnce(project, service.name, MIGRATION_TIMEOUT_MS);
      if (result.code !== 0) {
        const tail = `${result.stdout.toString('utf8')}\n${result.stderr}`.trim().split('\n').slice(-3).join(' / ');
        throw new ApplyError('migration-failed', `Cannot migrate: ${stack}/${service.name} exited ${result.code}: ${tail}`, { details: { stack, service: service.name, code: result.code } });
      }
      ran.push(`${stack}/${service.name}`);
    }
  }
  return { next: true, fields: { migrations: ran.length === 0 ? 'none' : ran.join(' ') } };
};
