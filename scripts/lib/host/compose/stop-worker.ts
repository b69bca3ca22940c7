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

const POLL_MS = 100;

/**
 * Step 7: stop the running worker with the configuration and retained lock of the release applied last, and wait until it
 * has stopped. Nothing to stop on a first install or when that release has no worker; a worker that cannot be identified
 * or stopped ends the tick before anything new starts.
 */
export const stopWorker: Step<ComposeTickState> = async (ctx, state) => {
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
  const stopped: string[] = [];
  for (const { stack, project, workers } of rendered) {
    if (workers.length === 0) continue;
    const grace = Math.max(...workers.map((w) => w.stopGraceSeconds));
    const deadline = (grace + 30) * 1000;
    try {
      await ports.compose.stop(
        project,
        workers.map((w) => w.name),
        deadline,
      );
    } catch (cause) {
      throw new ApplyError('worker-stop-failed', `Cannot stop the worker of ${name}: ${(cause as Error).message}`, {
        cause,
      });
    }
    const until = Date.now() + deadline;
    for (;;) {
      const running = (await ports.docker.containers({ 'com.docker.compose.project': project.project })).filter(
        (c) => c.running && !c.oneoff && workers.some((w) => w.name === c.service),
      );
      if (running.length === 0) break;
      if (Date.now() > until)
        throw new ApplyError(
          'worker-stop-failed',
          `Cannot stop the worker of ${name}: ${running.map((c) => c.name).join(', ')} still running after ${grace} s grace`,
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    stopped.push(...workers.map((w) => `${stack}/${w.name}`));
  }
  return { next: true, fields: { stopped: stopped.length === 0 ? 'none' : stopped.join(' '), of: name } };
};
