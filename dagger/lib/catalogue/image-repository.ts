/** Docker Hub spellings compare equal: `docker.io/library/x`, `index.docker.io/x` and `x` are one repository. */
export function normaliseRepository(repo: string): string {
  let out = repo.toLowerCase().replace(/^(index\.)?docker\.io\//, '');
  if (out.startsWith('library/')) out = out.slice('library/'.length);
  return out;
}

/** An `owned` entry ending in `/` is a prefix; any other names exactly one repository. */
export function isOwned(repo: string, owned: readonly string[]): boolean {
  const name = normaliseRepository(repo);
  return owned.some((entry) =>
    entry.endsWith('/') ? name.startsWith(normaliseRepository(entry)) : name === normaliseRepository(entry),
  );
}
