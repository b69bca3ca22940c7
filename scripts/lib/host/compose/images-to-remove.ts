// Disk pruning's kept set for images: which untagged release images a prune may remove. Pure.
import type { ImageInfo } from '../../ports/docker.ts';

/** `registry/repo@sha256:…` -> `registry/repo`. */
export const repositoryOf = (reference: string): string => reference.slice(0, reference.lastIndexOf('@'));

/**
 * What may go: images of the given repositories that have no tag (a release image is pulled by digest and never has one;
 * a tagged image belongs to someone else) and whose id no kept reference resolves to. Pure.
 */
export function imagesToRemove(
  images: readonly ImageInfo[],
  repositories: ReadonlySet<string>,
  keptIds: ReadonlySet<string>,
): { readonly reference: string; readonly id: string }[] {
  const out: { reference: string; id: string }[] = [];
  for (const image of images) {
    if (image.tags.length > 0 || keptIds.has(image.id)) continue;
    for (const digest of image.digests)
      if (repositories.has(repositoryOf(digest))) out.push({ reference: digest, id: image.id });
  }
  return out;
}
