import { imagesToRemove, repositoryOf } from './images-to-remove.ts';
import type { TickContext, TickState } from '../tick-context.ts';
import { retainedLock } from '../retained-locks.ts';
import { lockImages } from './lock-images.ts';

/**
 * Removes the images of `scope`'s repositories that no reference of `keep` names, never forced (Docker refuses an image a
 * container uses); journals each removal and each refusal. Returns how many references were removed.
 */
export async function pruneImages(
  ctx: TickContext,
  scope: readonly string[],
  keep: readonly string[],
  why: string,
): Promise<number> {
  const { docker } = ctx.ports;
  const repositories = new Set(scope.map(repositoryOf));
  if (repositories.size === 0) return 0;
  const keptIds = new Set<string>();
  for (const reference of keep) {
    const id = await docker.imageId(reference);
    if (id !== undefined) keptIds.add(id);
  }
  let removed = 0;
  const images = await docker.images();
  // The seed's journal names every image it keeps as well as every one it removes.
  for (const image of images.filter((i) => i.tags.length === 0 && keptIds.has(i.id))) {
    for (const digest of image.digests.filter((d) => repositories.has(repositoryOf(d))))
      ctx.log('image', { status: 'kept', image: digest, id: image.id.slice(0, 19), why: 'named by a kept release' });
  }
  for (const { reference, id } of imagesToRemove(images, repositories, keptIds)) {
    const result = await docker.removeImage(reference);
    if (result.removed) removed += 1;
    ctx.log('image', {
      status: result.removed ? 'removed' : 'kept',
      image: reference,
      id: id.slice(0, 19),
      why: result.removed ? why : (result.reason ?? 'refused'),
    });
  }
  return removed;
}

/** After a recorded apply (the prune step): the images neither the applied nor the previous release names. */
export async function pruneReleaseImages(
  ctx: TickContext,
  state: TickState,
  previous: string | undefined,
): Promise<void> {
  const named = lockImages([state.lockEnv, await retainedLock(ctx, previous)]);
  await pruneImages(ctx, named, named, 'named by neither the applied nor the previous release');
}
