/** The repository of an image reference, without tag or digest: `pharos/api:1@sha256:…` → `pharos/api`. */
export function imageRepository(ref: string): string {
  const noDigest = ref.split('@')[0] ?? '';
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** Docker Hub spellings compare equal: `docker.io/library/x`, `index.docker.io/x` and `x` are one repository. */
export function normaliseRepository(repo: string): string {
  let out = repo.toLowerCase().replace(/^(index\.)?docker\.io\//, '');
  if (out.startsWith('library/')) out = out.slice('library/'.length);
  return out;
}

export function isOwned(repo: string, owned: readonly string[]): boolean {
  const name = normaliseRepository(repo);
  return owned.some((prefix) => name.startsWith(normaliseRepository(prefix)));
}
