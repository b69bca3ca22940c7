export { isOwned, normaliseRepository } from '../catalogue/image-repository.ts';

/** The repository of an image reference, without tag or digest: `pharos/api:1@sha256:…` → `pharos/api`. */
export function imageRepository(ref: string): string {
  const noDigest = ref.split('@')[0] ?? '';
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}
