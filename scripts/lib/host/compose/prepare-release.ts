import { lockEnv } from '../../lock/check-lock.ts';
import { verifiedReleaseLock } from '../release-lock.ts';
import { appliedView } from '../applied-record.ts';
import { hostPaths, stacksOf } from '../host-paths.ts';
import { parseEnvFile } from '../load-host-config.ts';
import { ensureWorktree, verifiedTarget } from '../release-worktree.ts';
import { commitChannelImages } from './commit-channel-images.ts';
import { commitLockEnv } from '../release-lock.ts';
import type { Step } from '../tick-context.ts';
import type { ComposeTickState } from './compose-state.ts';

/**
 * Step 3: verify first, from Git objects only (the lock of a release, the images of a commit channel), then create or
 * check the target's worktree at the verified commit and write the lock to release-locks/. A refused lock leaves no file.
 */
export const prepareRelease: Step<ComposeTickState> = async (ctx, state) => {
  const { plan, channel, cache, commit, release, name } = await verifiedTarget(state, 'prepareRelease');
  const { config, ports } = ctx;
  const root = config.HEPHAESTUS_ROOT;
  let text: string;
  let database: string | undefined;
  if (release !== undefined) {
    const lock = await verifiedReleaseLock(
      {
        checkout: plan.checkout,
        releaseUrl: config.HEPHAESTUS_RELEASE_URL,
        timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000,
      },
      release,
      commit,
      'compose',
      await ctx.trust('release'),
    );
    text = lockEnv(lock);
  } else {
    const chosen = await commitChannelImages({
      cache,
      fs: ports.fs,
      root,
      channel,
      commit,
      previous: state.applied === undefined ? undefined : appliedView(state.applied),
      stacks: stacksOf(config.HEPHAESTUS_STACKS),
    });
    text = commitLockEnv(commit, chosen.images);
    database = chosen.database;
  }
  const worktree = hostPaths.worktree(root, name);
  const made = await ensureWorktree(cache, ports.git(worktree), commit, ports.clock.now());
  const lockPath = hostPaths.lockEnv(root, name);
  await ports.fs.writeAtomic(lockPath, text, 0o600);
  const env = parseEnvFile(text, lockPath);
  state.target = { name, release, commit };
  state.worktree = worktree;
  state.lockEnv = env;
  state.images = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('HEPHAESTUS_IMAGE_')));
  return {
    next: true,
    fields: { target: name, commit, worktree: made, ...(database === undefined ? {} : { database }) },
  };
};
