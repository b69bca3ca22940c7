import { appliedView } from '../applied-record.ts';
import { ApplyError } from '../apply-error.ts';
import { hostPaths, stacksOf } from '../host-paths.ts';
import { ensureWorktree } from '../release-worktree.ts';
import { parseRenderedStack } from './stack-config.ts';
import { assertStackFiles } from './stack-files.ts';
import { readEnvFile } from '../load-host-config.ts';
import { stackProject } from './stack-project.ts';
import type { Step } from '../tick-context.ts';
import type { ComposeTickState } from './compose-state.ts';

/**
 * Step 5, before anything of the new release is pulled or migrated: identify the running worker from the release applied
 * last: applied.json must name its commit, its retained lock must be present and name that same commit, and its worktree
 * and stacks must render. Nothing to identify on a first install; otherwise a worker that cannot be identified ends the
 * tick (exit 3) before the pull, so a retried request never runs the migration again for nothing.
 */
export const identifyWorker: Step<ComposeTickState> = async (ctx, state) => {
  const { config, ports } = ctx;
  if (state.applied === undefined) return { next: true, fields: { stopped: 'none', why: 'first install' } };
  const view = appliedView(state.applied);
  const root = config.HEPHAESTUS_ROOT;
  const cache = state.plan?.checkout.git ?? ports.git(hostPaths.cache(root));
  // A seed record may name a release without its commit. Where the tag points now proves nothing; only a verified lock of
  // that same release (a new promotion of the running release) says which commit runs.
  const target = state.target;
  const commit =
    view.commit ?? (view.release !== undefined && target?.release === view.release ? target.commit : undefined);
  if (commit === undefined) {
    throw new ApplyError(
      'worker-unknown',
      `Cannot identify the running worker: applied.json names release ${view.release ?? '?'} without its commit; promote ${view.release ?? 'the running release'} again so the host verifies its lock and records the commit`,
      { exitCode: 3 },
    );
  }
  const name = view.release ?? commit;
  const lockPath = hostPaths.lockEnv(root, name);
  const lockEnv = await readEnvFile(ports.fs, lockPath).catch((cause: Error) => {
    throw new ApplyError('worker-unknown', `Cannot identify the running worker: ${cause.message}`, {
      exitCode: 3,
      cause,
    });
  });
  if (lockEnv === undefined)
    throw new ApplyError(
      'worker-unknown',
      `Cannot identify the running worker: the retained lock ${lockPath} of ${name} is missing`,
      { exitCode: 3 },
    );
  if (lockEnv.HEPHAESTUS_COMMIT !== commit)
    throw new ApplyError(
      'worker-unknown',
      `Cannot identify the running worker: the retained lock ${lockPath} names commit ${lockEnv.HEPHAESTUS_COMMIT ?? 'none'}, applied.json ${commit}`,
      { exitCode: 3, details: { lock: lockEnv.HEPHAESTUS_COMMIT, applied: commit } },
    );
  const worktree = hostPaths.worktree(root, name);
  try {
    await ensureWorktree(cache, ports.git(worktree), commit, ports.clock.now());
  } catch (cause) {
    throw new ApplyError('worker-unknown', `Cannot identify the running worker: ${(cause as Error).message}`, {
      exitCode: 3,
      cause,
    });
  }
  // Rendering the previous release is read-only: all stacks at once; stopping then goes stack by stack.
  const rendered = await Promise.all(
    stacksOf(config.HEPHAESTUS_STACKS).map(async (stack) => {
      const project = await stackProject(ports.fs, {
        etc: config.HEPHAESTUS_ETC,
        prefix: config.HEPHAESTUS_PROJECT_PREFIX,
        worktree,
        stack,
        lockEnv,
      });
      const raw = await ports.fs.read(project.file);
      if (raw === undefined) return { stack, project, services: [], workers: [] }; // the stack is new in the target
      try {
        await assertStackFiles(worktree, project.file, raw.toString('utf8'));
        const services = parseRenderedStack(await ports.compose.config(project), `${project.file} (rendered)`);
        return { stack, project, services, workers: services.filter((s) => s.role === 'worker') };
      } catch (cause) {
        throw new ApplyError(
          'worker-unknown',
          `Cannot identify the running worker of ${name}: ${(cause as Error).message}`,
          { exitCode: 3, cause },
        );
      }
    }),
  );
  state.previous = {
    name,
    stacks: rendered
      .filter((r) => r.services.length > 0)
      .map(({ stack, project, services }) => ({ stack, project, services })),
  };
  const workers = rendered.flatMap((r) => r.workers.map((w) => `${r.stack}/${w.name}`));
  return { next: true, fields: { running: name, workers: workers.length === 0 ? 'none' : workers.join(' ') } };
};
