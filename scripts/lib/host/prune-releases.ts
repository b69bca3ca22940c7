import { readdir, readlink, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { hostPaths } from './host-paths.ts';
import { keepReason } from './keep-reason.ts';
import type { ReleaseFolder } from './keep-reason.ts';
import { targetName } from './retained-locks.ts';
import type { Step, TickContext, TickState } from './tick-context.ts';

/** What an applier removes after the release folders (Compose: the images no kept release names). */
export type PruneMore = (ctx: TickContext, state: TickState, previous: string | undefined) => Promise<void>;

async function describeFolders(ctx: TickContext, cacheDir: string, names: readonly string[]): Promise<ReleaseFolder[]> {
  const root = ctx.config.HEPHAESTUS_ROOT;
  const listed = (await ctx.ports.git(cacheDir).run(['worktree', 'list', '--porcelain'])).stdout.toString('utf8');
  const registered = new Map<string, boolean>();
  for (const block of listed.split('\n\n')) {
    const path = /^worktree (.*)$/m.exec(block)?.[1];
    if (path !== undefined) registered.set(await realpath(path).catch(() => path), /^locked/m.test(block));
  }
  const link = await readlink(join(root, 'tooling')).then(
    (target) => realpath(resolve(root, target)),
    () => undefined,
  );
  const out: ReleaseFolder[] = [];
  for (const name of names) {
    const dir = await realpath(hostPaths.worktree(root, name));
    const known = registered.has(dir);
    const status = known
      ? await ctx.ports.git(dir).run(['status', '--porcelain', '--ignored', '--untracked-files=all'])
      : undefined;
    // An adopted reconciler's node_modules is ours, not the operator's: it does not keep a worktree.
    const files =
      status?.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '' && l !== '!! node_modules/') ?? [];
    out.push({
      name,
      registered: known,
      locked: registered.get(dir) === true,
      holdsFiles: status === undefined || status.code !== 0 || files.length > 0,
      tooling: link === dir,
    });
  }
  return out;
}

/**
 * Step 10, after a recorded apply: `git worktree remove` every release folder outside the kept set (the release just
 * applied, the previous one, the tooling's, locked ones, ones holding files), then the locks of releases without a
 * folder, then what the applier prunes (`more`). Never a Docker volume. A failure here fails the tick (exit 1) with
 * the new release running and recorded; the next apply prunes what is left.
 */
export const pruneReleases =
  (more?: PruneMore): Step =>
  async (ctx, state) => {
    const root = ctx.config.HEPHAESTUS_ROOT;
    if (state.applied === undefined || state.target === undefined)
      throw new Error('pruneReleases runs after recordApplied');
    const applied = state.target.name;
    const previous = targetName(state.applied.record.previous);
    const cacheDir = state.plan?.checkout.git.dir ?? hostPaths.cache(root);
    const removed: string[] = [];
    let kept = 0;
    try {
      const names = (await readdir(join(root, 'releases'), { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
      for (const folder of await describeFolders(ctx, cacheDir, names)) {
        const why = keepReason(folder, applied, previous);
        if (why !== undefined) {
          kept += 1;
          if (why !== 'applied' && why !== 'previous') ctx.log('prune', { status: 'kept', worktree: folder.name, why });
          continue;
        }
        const result = await ctx.ports.git(cacheDir).run(['worktree', 'remove', hostPaths.worktree(root, folder.name)]);
        if (result.code !== 0) throw new Error(`Cannot remove worktree "${folder.name}": ${result.stderr.trim()}`);
        removed.push(folder.name);
        ctx.log('prune', { status: 'removed', worktree: folder.name });
      }
      const folders = new Set((await readdir(join(root, 'releases'))).sort());
      for (const file of await readdir(join(root, 'release-locks')).catch(() => [] as string[])) {
        const name = file.replace(/\.env$/, '');
        if (!file.endsWith('.env') || folders.has(name)) continue;
        await ctx.ports.fs.remove(hostPaths.lockEnv(root, name));
        ctx.log('prune', { status: 'removed', lock: file });
      }
      await more?.(ctx, state, previous);
    } catch (error) {
      const message = `applied ${applied}; pruning failed: ${(error as Error).message}`;
      return {
        next: false,
        fields: { removed: removed.length, kept, error: message },
        outcome: { exit: 1, result: 'applied', message },
      };
    }
    return {
      next: false,
      fields: { removed: removed.length === 0 ? 'none' : removed.join(' '), kept },
      outcome: { exit: 0, result: 'applied', message: `applied ${applied}` },
    };
  };
