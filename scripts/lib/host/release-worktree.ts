import { access } from 'node:fs/promises';
import type { Git } from '../ports/git.ts';
import { ApplyError } from './apply-error.ts';

const exists = (path: string) => access(path).then(() => true, () => false);

/** The commit a tag or SHA names in the deploy-state cache; an unknown one cannot be applied. */
export async function resolveTargetCommit(cache: Git, target: { readonly release: string } | { readonly commit: string }): Promise<string> {
  const rev = 'release' in target ? `refs/tags/${target.release}^{commit}` : `${target.commit}^{commit}`;
  const result = await cache.run(['rev-parse', '--verify', '--quiet', rev]);
  if (result.code !== 0) {
    const what = 'release' in target ? `release tag "${target.release}"` : `commit ${target.commit}`;
    throw new ApplyError('target', `Cannot find ${what} in "${cache.dir}" after fetching the repository`, { details: { target } });
  }
  return result.stdout.toString('utf8').trim();
}

/**
 * `releases/<target>/` as a worktree of the cache at `commit`: created if missing, else checked.
 * A worktree at another commit or with modified tracked files is refused, never repaired: someone changed what was signed.
 */
export async function ensureWorktree(cache: Git, worktree: Git, commit: string): Promise<'created' | 'checked'> {
  if (!(await exists(worktree.dir))) {
    await cache.run(['worktree', 'prune']);
    const added = await cache.run(['worktree', 'add', '--detach', '--force', worktree.dir, commit]);
    if (added.code !== 0) throw new ApplyError('worktree', `Cannot create worktree "${worktree.dir}" at ${commit}: ${added.stderr.trim()}`);
    return 'created';
  }
  const head = await worktree.run(['rev-parse', '--verify', 'HEAD']);
  if (head.code !== 0) throw new ApplyError('worktree-modified', `Cannot use "${worktree.dir}": not a Git worktree (${head.stderr.trim()}); move it away to let the host rebuild it`, { exitCode: 3 });
  const at = head.stdout.toString('utf8').trim();
  if (at !== commit) throw new ApplyError('worktree-modified', `Cannot use "${worktree.dir}": it is at ${at}, not ${commit}; move it away to let the host rebuild it`, { exitCode: 3 });
  const status = await worktree.run(['status', '--porcelain', '--untracked-files=no']);
  if (status.code !== 0) throw new ApplyError('worktree', `Cannot check "${worktree.dir}": ${status.stderr.trim()}`);
  const modified = status.stdout.toString('utf8').split('\n').filter((l) => l !== '').map((l) => l.slice(3));
  if (modified.length > 0) {
    throw new ApplyError('worktree-modified', `Cannot use "${worktree.dir}": tracked files were modified (${modified.slice(0, 5).join(', ')}); restore them or move the folder away`, { exitCode: 3, details: { modified } });
  }
  return 'checked';
}
