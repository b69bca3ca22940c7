import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileKind } from '../ports/regular-file.ts';
import { repoPathProblem } from './repo-path.ts';

/**
 * Why `path` (a catalogue path) cannot be read from the checkout at `root` as the fingerprint reads it, or undefined:
 * the fingerprint never follows a symlink and never leaves the repository, so a build may not either. Every segment must
 * exist and none may be a symlink; the last must be a `kind`.
 */
export async function repoPathOnDiskProblem(
  root: string,
  path: string,
  kind: 'file' | 'directory',
  /** A missing last segment is fine (e.g. `.dockerignore`); a link or another kind is not. */
  optional = false,
): Promise<string | undefined> {
  const problem = repoPathProblem(path);
  if (problem !== undefined) return `"${path}" ${problem}`;
  const segments = path === '.' ? [] : path.split('/');
  for (let i = 1; i <= segments.length; i += 1) {
    const prefix = segments.slice(0, i).join('/');
    const info = await lstat(join(root, prefix)).catch(() => undefined);
    if (info === undefined)
      return optional && i === segments.length ? undefined : `"${prefix}" does not exist in the checkout`;
    if (info.isSymbolicLink())
      return `"${prefix}" is a symbolic link: a build reads only files inside the repository, as the fingerprint does`;
    const last = i === segments.length;
    if (!last && !info.isDirectory()) return `"${prefix}" is not a folder`;
    if (last && kind === 'file' && !info.isFile()) return `"${prefix}" is ${fileKind(info)}, not a regular file`;
    if (last && kind === 'directory' && !info.isDirectory()) return `"${prefix}" is not a folder`;
  }
  return undefined;
}
