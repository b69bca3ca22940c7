import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ApplyError } from './apply-error.ts';

/**
 * `path` (absolute, or relative to `from`) lies inside `worktree`, and no component of it below the worktree is a
 * symlink; the last one is a regular file (`file`) or a file or folder (`mount`). Reads only metadata.
 */
export async function assertReleasePath(
  worktree: string,
  from: string,
  path: string,
  what: 'file' | 'mount',
  where: string,
): Promise<void> {
  const full = resolve(from, path);
  const inside = relative(worktree, full);
  if (inside === '' && what === 'file')
    throw new ApplyError('render', `Cannot use ${where}: "${path}" is the release folder itself, not a file`);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new ApplyError('render', `Cannot use ${where}: "${path}" leads outside the release worktree`, {
      details: { path },
    });
  let current = worktree;
  const parts = inside === '' ? [] : inside.split(sep);
  for (const [index, part] of parts.entries()) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info === undefined)
      throw new ApplyError('render', `Cannot use ${where}: "${path}" does not exist in the release`, {
        details: { path },
      });
    if (info.isSymbolicLink())
      throw new ApplyError(
        'render',
        `Cannot use ${where}: "${relative(worktree, current)}" is a symlink; a host reads only regular files of the signed release`,
        { details: { path } },
      );
    const last = index === parts.length - 1;
    if (last && what === 'file' && !info.isFile())
      throw new ApplyError('render', `Cannot use ${where}: "${path}" is not a regular file`, { details: { path } });
  }
}
