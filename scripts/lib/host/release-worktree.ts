import { lstat, mkdir, realpath, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Git } from '../ports/git.ts';
import { ApplyError } from './apply-error.ts';
import type { TickState } from './tick-context.ts';
import { acceptedCommit } from './accepted-commits.ts';

/** Where a worktree that is not the verified tree is moved (never deleted: an operator may want to see what was there). */
export function quarantinePath(worktreeDir: string, now: Date): string {
  return join(
    dirname(dirname(worktreeDir)),
    'quarantine',
    `${basename(worktreeDir)}-${now.toISOString().replace(/[:.]/g, '-')}`,
  );
}

/** The commit a tag or SHA names in the deploy-state cache; an unknown one cannot be applied. */
export async function resolveTargetCommit(
  cache: Git,
  target: { readonly release: string } | { readonly commit: string },
): Promise<string> {
  const rev = 'release' in target ? `refs/tags/${target.release}^{commit}` : `${target.commit}^{commit}`;
  const result = await cache.run(['rev-parse', '--verify', '--quiet', rev]);
  if (result.code !== 0) {
    const what = 'release' in target ? `release tag "${target.release}"` : `commit ${target.commit}`;
    throw new ApplyError('target', `Cannot find ${what} in "${cache.dir}" after fetching the repository`, {
      details: { target },
    });
  }
  return result.stdout.toString('utf8').trim();
}

/**
 * `releases/<target>/` as a worktree of the cache at `commit`, the verified commit: created if missing; moved to
 * `quarantine/` and created again if it is not a worktree at that commit (a symlink, another commit, a plain folder).
 * Modified tracked files are refused (exit 3), never repaired: an operator changed what was signed, and may want it.
 */
export async function ensureWorktree(
  cache: Git,
  worktree: Git,
  commit: string,
  now: Date = new Date(),
): Promise<'created' | 'checked' | 'recreated'> {
  const info = await lstat(worktree.dir).catch(() => undefined);
  let moved = false;
  if (info !== undefined) {
    const head = info.isSymbolicLink() ? undefined : await worktree.run(['rev-parse', '--verify', 'HEAD']);
    const at = head?.code === 0 ? head.stdout.toString('utf8').trim() : undefined;
    // A nested worktree resolves HEAD from its own .git file; a plain folder inside the cache would report the cache's HEAD.
    const top =
      head?.code === 0
        ? (await worktree.run(['rev-parse', '--show-toplevel'])).stdout.toString('utf8').trim()
        : undefined;
    if (at === commit && top === (await realpath(worktree.dir))) return checkClean(worktree);
    const aside = quarantinePath(worktree.dir, now);
    await mkdir(dirname(aside), { recursive: true, mode: 0o750 });
    await rename(worktree.dir, aside);
    moved = true;
  }
  await cache.run(['worktree', 'prune']);
  const added = await cache.run(['worktree', 'add', '--detach', '--force', worktree.dir, commit]);
  if (added.code !== 0)
    throw new ApplyError('worktree', `Cannot create worktree "${worktree.dir}" at ${commit}: ${added.stderr.trim()}`);
  return moved ? 'recreated' : 'created';
}

async function checkClean(worktree: Git): Promise<'checked'> {
  const status = await worktree.run(['status', '--porcelain', '--untracked-files=no']);
  if (status.code !== 0) throw new ApplyError('worktree', `Cannot check "${worktree.dir}": ${status.stderr.trim()}`);
  const modified = status.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.slice(3));
  if (modified.length > 0) {
    throw new ApplyError(
      'worktree-modified',
      `Cannot use "${worktree.dir}": tracked files were modified (${modified.slice(0, 5).join(', ')}); restore them or move the folder away`,
      { exitCode: 3, details: { modified } },
    );
  }
  return 'checked';
}

/**
 * The verified decision's target, as step 3 of either applier starts from it: the channel, its commit and its name. A
 * release this host applied before is taken at the commit it accepted then (a rollback to a pruned release whose tag
 * moved is rebuilt there, and its signed lock must name that commit); any other release at its tag's commit.
 */
export async function verifiedTarget(state: TickState, step: string) {
  const plan = state.plan;
  if (plan === undefined || !plan.evidence.ok) throw new Error(`${step} runs after a verified decision`);
  const channel = plan.evidence.channel;
  const cache = plan.checkout.git;
  const release = 'release' in channel.target ? channel.target.release : undefined;
  const accepted = release === undefined ? undefined : await acceptedCommit(cache, state.applied, release);
  const commit = accepted ?? (await resolveTargetCommit(cache, channel.target));
  return { plan, channel, cache, commit, release, name: release ?? commit, accepted: accepted !== undefined };
}
