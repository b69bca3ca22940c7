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

/** True when `path` is `prefix` or lies under it; `.` covers the whole repository. */
export function isAtOrUnder(path: string, prefix: string): boolean {
  return prefix === '.' || path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
}
