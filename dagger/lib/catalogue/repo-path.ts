/** Why a catalogue path is unsafe, or undefined when it is a normalised POSIX path inside the repo. */
export function repoPathProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (/[\0\t\n\r]/.test(path)) return 'must not contain NUL, tab or newline';
  if (path.startsWith('/')) return 'must be relative to the repository root';
  if (path.includes('\\')) return 'must use "/" separators';
  if (path === '.') return undefined;
  const segments = path.split('/');
  if (segments.includes('..')) return 'must stay inside the repository (no ".." segment)';
  if (segments.includes('')) return 'must not have an empty segment or a trailing "/"';
  if (segments.includes('.')) return 'must be normalised (no "." segment)';
  return undefined;
}

/**
 * The spellings Compose and Skaffold write, made canonical: `./src/x` and `src/x/` are `src/x`,
 * `./` is `.`. Anything else (`..`, `a//b`, a leading `/`) is left for repoPathProblem to refuse.
 */
export function normaliseRepoPath(path: string): string {
  if (path === '' || path.startsWith('/') || /[\0\t\n\r]/.test(path)) return path;
  let segments = path.split('/');
  if (segments.length > 1 && segments.at(-1) === '') segments = segments.slice(0, -1);
  if (segments.includes('')) return path;
  segments = segments.filter((segment) => segment !== '.');
  return segments.length === 0 ? '.' : segments.join('/');
}

/** True when `path` is `prefix` or lies under it; `.` covers the whole repository. */
export function isAtOrUnder(path: string, prefix: string): boolean {
  return prefix === '.' || path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
}
