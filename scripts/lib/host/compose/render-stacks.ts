import { ApplyError } from '../apply-error.ts';
import { stacksOf } from '../host-paths.ts';
import type { Step } from '../tick-context.ts';
import { checkStackImages } from './check-stack-images.ts';
import type { ComposeTickState } from './compose-state.ts';
import { parseRenderedStack, rawServiceImages } from './stack-config.ts';
import { assertStackFiles } from './stack-files.ts';
import { stackProject } from './stack-project.ts';

/** Step 4: render every stack with `compose config`; every service image must be its own variable's digest from the lock. */
export const renderStacks: Step<ComposeTickState> = async (ctx, state) => {
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
