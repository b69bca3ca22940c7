import { lockEnv } from '../../lock/check-lock.ts';
import { verifiedReleaseLock } from '../release-lock.ts';
import { appliedView } from '../applied-record.ts';
import { checkStackImages } from './check-stack-images.ts';
import { hostPaths, stacksOf } from '../host-paths.ts';
import { parseEnvFile } from '../load-host-config.ts';
import { ensureWorktree, verifiedTarget } from '../release-worktree.ts';
import { ApplyError } from '../apply-error.ts';
import { parseRenderedStack, rawServiceImages } from './stack-config.ts';
import { stackProject } from './stack-project.ts';
import { assertStackFiles } from './stack-files.ts';
import { commitChannelImages, commitLockEnv } from './commit-channel-images.ts';
import type { Step } from '../tick-context.ts';

/**
 * Step 3: verify first, from Git objects only (the lock of a release, the images of a commit channel), then create or
 * check the target's worktree at the verified commit and write the lock to release-locks/. A refused lock leaves no file.
 */
export const prepareRelease: Step = async (ctx, state) => {
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

/** Step 4: render every stack with `compose config`; every service image must be its own variable's digest from the lock. */
export const renderStacks: Step = async (ctx, state) => {
  const { config, ports } = ctx;
  const { target, worktree, lockEnv: env, images } = state;
  if (target === undefined || worktree === undefined || env === undefined || images === undefined)
    throw new Error('renderStacks runs after prepareRelease');
  const stacks = stacksOf(config.HEPHAESTUS_STACKS);
  if (stacks.length === 0)
    throw new ApplyError('render', 'Cannot apply: HEPHAESTUS_STACKS names no stack', { exitCode: 2 });
  // Rendering is read-only: all stacks at once (each Compose start costs a few hundred ms); the error reported is the
  // first failing stack's in HEPHAESTUS_STACKS order, not whichever failed first in time.
  const results = await Promise.allSettled(
    stacks.map(async (stack) => {
      const project = await stackProject(ports.fs, {
        etc: config.HEPHAESTUS_ETC,
        prefix: config.HEPHAESTUS_PROJECT_PREFIX,
        worktree,
        stack,
        lockEnv: env,
      });
      const raw = await ports.fs.read(project.file);
      if (raw === undefined)
        throw new ApplyError(
          'render',
          `Cannot render stack "${stack}": ${project.file} does not exist at ${target.name}`,
        );
      await assertStackFiles(worktree, project.file, raw.toString('utf8'));
      const rendered = parseRenderedStack(await ports.compose.config(project), `${project.file} (rendered)`);
      checkStackImages(
        `docker/compose.${stack}.yaml`,
        rawServiceImages(raw.toString('utf8'), project.file),
        rendered,
        images,
        target.name,
      );
      return { stack, project, services: rendered };
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  state.stacks = results.map((r) => (r as PromiseFulfilledResult<NonNullable<typeof state.stacks>[number]>).value);
  const count = state.stacks.reduce((n, s) => n + s.services.length, 0);
  return { next: true, fields: { stacks: stacks.join(' '), services: count } };
};
