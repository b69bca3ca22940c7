import { ApplyError } from '../apply-error.ts';
import type { Step } from '../tick-context.ts';
import type { ComposeTickState } from './compose-state.ts';

const POLL_MS = 100;

/**
 * Step 8: stop the worker identified before the pull (the configuration and retained lock of the release applied last), and
 * wait until it has stopped. Nothing to stop on a first install or when that release has no worker; a worker that cannot
 * be stopped ends the tick before anything new starts.
 */
export const stopWorker: Step<ComposeTickState> = async (ctx, state) => {
  const previous = state.previous;
  if (state.applied === undefined || previous === undefined)
    return { next: true, fields: { stopped: 'none', why: state.applied === undefined ? 'first install' : 'no stack' } };
  const { ports } = ctx;
  const name = previous.name;
  const rendered = previous.stacks.map((r) => ({ ...r, workers: r.services.filter((s) => s.role === 'worker') }));
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
