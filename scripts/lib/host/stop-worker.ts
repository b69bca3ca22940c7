import { appliedView } from './applied-record.ts';
import { ApplyError } from './apply-error.ts';
import { hostPaths, stacksOf } from './host-paths.ts';
import { ensureWorktree, resolveTargetCommit } from './release-worktree.ts';
import { parseRenderedStack } from './stack-config.ts';
import { readEnvFile, stackProject } from './stack-project.ts';
import type { Step } from './tick-context.ts';

const POLL_MS = 100;

/**
 * Step 7: stop the running worker with the configuration and retained lock of the release applied last, and wait until it
 * has stopped. Nothing to stop on a first install or when that release has no worker; a worker that cannot be identified
 * or stopped ends the tick before anything new starts.
 */
export const stopWorker: Step = async (ctx, state) => {
  const { config, ports } = ctx;
  if (state.applied === undefined) return { next: true, fields: { stopped: 'none', why: 'first install' } };
  const view = appliedView(state.applied);
  const root = config.HEPHAESTUS_ROOT;
  const cache = state.plan?.checkout.git ?? ports.git(hostPaths.cache(root));
  // A seed record may name a release without its commit: the tag says which commit ran.
  const commit = view.commit ?? (view.release === undefined ? undefined : await resolveTargetCommit(cache, { release: view.release }).catch(() => undefined));
  if (commit === undefined) throw new ApplyError('worker-unknown', `Cannot identify the running worker: applied.json names release ${view.release ?? '?'} and no commit for it`, { exitCode: 3 });
  const name = view.release ?? commit;
  const lockPath = hostPaths.lockEnv(root, name);
  const lockEnv = await readEnvFile(ports.fs, lockPath).catch((cause: Error) => {
    throw new ApplyError('worker-unknown', `Cannot identify the running worker: ${cause.message}`, { exitCode: 3, cause });
  });
  if (lockEnv === undefined) throw new ApplyError('worker-unknown', `Cannot identify the running worker: the retained lock ${lockPath} of ${name} is missing`, { exitCode: 3 });
  const worktree = hostPaths.worktree(root, name);
  try {
    await ensureWorktree(cache, ports.git(worktree), commit);
  } catch (cause) {
    throw new ApplyError('worker-unknown', `Cannot identify the running worker: ${(cause as Error).message}`, { exitCode: 3, cause });
  }
  // Rendering the previous release is read-only: all stacks at once; stopping then goes stack by stack.
  const rendered = await Promise.all(
    stacksOf(config.HEPHAESTUS_STACKS).map(async (stack) => {
      const project = await stackProject(ports.fs, { etc: config.HEPHAESTUS_ETC, prefix: config.HEPHAESTUS_PROJECT_PREFIX, worktree, stack, lockEnv });
      if ((await ports.fs.read(project.file)) === undefined) return { stack, project, workers: [] }; // the stack is new in the target
      try {
        const services = parseRenderedStack(await ports.compose.config(project), `${project.file} (rendered)`);
        return { stack, project, workers: services.filter((s) => s.role === 'worker') };
      } catch (cause) {
        throw new ApplyError('worker-unknown', `Cannot identify the running worker of ${name}: ${(cause as Error).message}`, { exitCode: 3, cause });
      }
    }),
  );
  const stopped: string[] = [];
  for (const { stack, project, workers } of rendered) {
    if (workers.length === 0) continue;
    const grace = Math.max(...workers.map((w) => w.stopGraceSeconds));
    const deadline = (grace + 30) * 1000;
    try {
      await ports.compose.stop(project, workers.map((w) => w.name), deadline);
    } catch (cause) {
      throw new ApplyError('worker-stop-failed', `Cannot stop the worker of ${name}: ${(cause as Error).message}`, { cause });
    }
    const until = Date.now() + deadline;
    for (;;) {
      const running = (await ports.docker.containers({ 'com.docker.compose.project': project.project })).filter((c) => c.running && !c.oneoff && workers.some((w) => w.name === c.service));
      if (running.length === 0) break;
      if (Date.now() > until) throw new ApplyError('worker-stop-failed', `Cannot stop the worker of ${name}: ${running.map((c) => c.name).join(', ')} still running after ${grace} s grace`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    stopped.push(...workers.map((w) => `${stack}/${w.name}`));
  }
  return { next: true, fields: { stopped: stopped.length === 0 ? 'none' : stopped.join(' '), of: name } };
};
