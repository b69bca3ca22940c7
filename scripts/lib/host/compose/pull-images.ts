import { ApplyError } from '../apply-error.ts';
import type { Step } from '../tick-context.ts';
import type { ComposeTickState } from './compose-state.ts';
import { GIB, leastFreeBytes, minFreeBytes } from '../disk-space.ts';
import { lockImages } from './lock-images.ts';
import { pruneImages } from './prune-images.ts';
import { retainedLock, runningAndPrevious } from '../retained-locks.ts';

const PULL_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Step 5: pull every image that is not present, by digest; no container starts, so the running release keeps working.
 * Only when something must be pulled is free space checked (a rollback whose images are here is never refused): below
 * HEPHAESTUS_MIN_FREE_GIB the images that neither the running, the previous nor the new release names go first.
 */
export const pullImages: Step<ComposeTickState> = async (ctx, state) => {
  const { config, ports } = ctx;
  const images = [...new Set(state.stacks.flatMap((s) => s.services.map((svc) => svc.image ?? '')))]
    .filter((i) => i !== '')
    .sort();
  const missing: string[] = [];
  for (const image of images) if (!(await ports.docker.imagePresent(image))) missing.push(image);
  const min = minFreeBytes(config);
  if (missing.length > 0 && min > 0) {
    let free = await leastFreeBytes(ctx);
    if (free !== undefined && free.bytes < min) {
      const { running, previous } = runningAndPrevious(state);
      const named = lockImages([await retainedLock(ctx, running), await retainedLock(ctx, previous), state.lockEnv]);
      await pruneImages(ctx, named, named, 'named by none of the running, previous and new releases');
      free = await leastFreeBytes(ctx);
    }
    if (free !== undefined && free.bytes < min) {
      throw new ApplyError(
        'disk-space',
        `Cannot pull ${missing.length} image(s): ${(free.bytes / GIB).toFixed(1)} GiB free on "${free.path}", below HEPHAESTUS_MIN_FREE_GIB=${config.HEPHAESTUS_MIN_FREE_GIB}; nothing was stopped`,
        { details: { free: free.bytes, path: free.path, min } },
      );
    }
  }
  for (const image of missing) {
    try {
      await ports.docker.pull(image, PULL_TIMEOUT_MS);
    } catch (cause) {
      throw new ApplyError('pull-failed', (cause as Error).message, { cause, details: { image } });
    }
  }
  return { next: true, fields: { images: images.length, pulled: missing.length } };
};
