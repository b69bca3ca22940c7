import { lstat } from 'node:fs/promises';
import { ApplyError } from './apply-error.ts';
import { recordedTargets } from './accepted-commits.ts';
import { hostPaths } from './host-paths.ts';
import { ensureWorktree } from './release-worktree.ts';
import type { Step } from './tick-context.ts';

/**
 * Step 2, before any other action: a recorded release (applied.json's target and the previous one) whose worktree under
 * releases/ was deleted is made again at the commit the host accepted, not where its tag points now. A commit the
 * repository lost stops the tick with the reason (exit 3): an operator restores it, or promotes again.
 */
export const rebuildWorktrees: Step = async (ctx, state) => {
  const root = ctx.config.HEPHAESTUS_ROOT;
  const rebuilt: string[] = [];
  for (const target of recordedTargets(state.applied)) {
    const dir = hostPaths.worktree(root, target.name);
    if ((await lstat(dir).catch(() => undefined)) !== undefined) continue;
    const cache = ctx.ports.git(hostPaths.cache(root));
    try {
      await ensureWorktree(cache, ctx.ports.git(dir), target.commit, ctx.ports.clock.now());
    } catch (cause) {
      throw new ApplyError(
        'worktree',
        `Cannot rebuild the worktree of ${target.name} at its accepted commit ${target.commit}: ${(cause as Error).message}`,
        { exitCode: 3, cause, details: { target: target.name, commit: target.commit } },
      );
    }
    rebuilt.push(target.name);
  }
  return { next: true, fields: { rebuilt: rebuilt.length === 0 ? 'none' : rebuilt.join(' ') } };
};
