import { ApplyError } from '../apply-error.ts';
import type { ContainerInfo, Docker } from '../../ports/docker.ts';
import type { Step, TickContext } from '../tick-context.ts';
import type { ComposeTickState, RenderedStack } from './compose-state.ts';

const POLL_MS = 200;

/** Services still not running and healthy on the expected image; empty when the stack is up. Pure. */
export function notReady(stack: RenderedStack, containers: readonly ContainerInfo[]): string[] {
  const waiting: string[] = [];
  for (const service of stack.services.filter((s) => s.role !== 'migration')) {
    const own = containers.filter((c) => c.service === service.name && !c.oneoff);
    if (own.length === 0) waiting.push(`${service.name}: no container`);
    for (const c of own) {
      if (c.image !== service.image) waiting.push(`${service.name}: runs ${c.image}`);
      else if (!c.running) waiting.push(`${service.name}: ${c.status} (exit ${c.exitCode})`);
      else if (c.health !== undefined && c.health !== 'healthy') waiting.push(`${service.name}: ${c.health}`);
    }
  }
  return waiting;
}

async function waitReady(docker: Docker, stack: RenderedStack, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const waiting = notReady(stack, await docker.containers({ 'com.docker.compose.project': stack.project.project }));
    if (waiting.length === 0) return;
    if (Date.now() > until)
      throw new ApplyError(
        'not-healthy',
        `Cannot bring up stack "${stack.stack}" within ${timeoutMs / 1000} s: ${waiting.join('; ')}`,
        { details: { stack: stack.stack, waiting } },
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function upAndWait(ctx: TickContext, stack: RenderedStack, timeoutMs: number): Promise<void> {
  const services = stack.services.filter((s) => s.role !== 'migration').map((s) => s.name);
  try {
    await ctx.ports.compose.up(stack.project, services, timeoutMs + 60_000);
  } catch (cause) {
    throw new ApplyError('up-failed', (cause as Error).message, { cause, details: { stack: stack.stack } });
  }
  await waitReady(ctx.ports.docker, stack, timeoutMs);
}

/** Brings the release applied last back, every stack at its own digests and configuration; returns what went wrong, if anything. */
async function restorePrevious(ctx: TickContext, state: ComposeTickState, timeoutMs: number): Promise<string> {
  const previous = state.previous;
  if (previous === undefined) return 'nothing to restore (first install)';
  const problems: string[] = [];
  for (const stack of previous.stacks) {
    try {
      await upAndWait(ctx, stack, timeoutMs);
    } catch (error) {
      problems.push(`${stack.stack}: ${(error as Error).message}`);
    }
  }
  ctx.log('restore', {
    status: problems.length === 0 ? 'ok' : 'failed',
    release: previous.name,
    stacks: previous.stacks.map((s) => s.stack).join(' '),
    ...(problems.length === 0 ? {} : { error: problems.join('; ') }),
  });
  return problems.length === 0
    ? `restored ${previous.name}`
    : `restoring ${previous.name} failed: ${problems.join('; ')}`;
}

/**
 * Step 8: `up` each stack in order (never the migration service), then wait until its services run and are healthy. If
 * one fails, the release applied last is brought back before the tick fails, so the host keeps serving it.
 */
export const upStacks: Step<ComposeTickState> = async (ctx, state) => {
  const timeoutMs = ctx.config.HEPHAESTUS_WAIT_TIMEOUT * 1000;
  for (const stack of state.stacks) {
    try {
      await upAndWait(ctx, stack, timeoutMs);
    } catch (error) {
      const restored = await restorePrevious(ctx, state, timeoutMs);
      const code = error instanceof ApplyError ? error.code : 'up-failed';
      throw new ApplyError(code, `${(error as Error).message}; ${restored}`, {
        cause: error,
        details: { stack: stack.stack, restored },
      });
    }
  }
  return { next: true, fields: { stacks: state.stacks.map((s) => s.stack).join(' ') } };
};
