import { join } from 'node:path';
import { isToolkitError } from '../errors/toolkit-error.ts';
import { keyValueSink, runSteps } from '../steps/index.ts';
import { appliedView } from './applied-record.ts';
import { FAILED_ATTEMPT_FILE } from './failed-attempt.ts';
import { hostPaths } from './host-paths.ts';
import { formatMetrics, lastSuccessFrom } from './metrics.ts';
import { leastFreeBytes, minFreeBytes } from './disk-space.ts';
import { LAST_TICK_FILE } from './last-tick.ts';
import { toolingPending } from './adopt-tooling.ts';
import type { LastTick } from './last-tick.ts';
import type { TickApplier } from './tick-applier.ts';
import type { TickContext, TickOutcome, TickState } from './tick-context.ts';

function failure(error: unknown): TickOutcome {
  const exit = isToolkitError(error) && (error.exitCode === 2 || error.exitCode === 3) ? error.exitCode : 1;
  const code = isToolkitError(error) ? error.code : 'internal';
  return { exit, result: 'failed', message: `[${code}] ${error instanceof Error ? error.message : String(error)}` };
}

/** Runs the applier's steps in order, journaling each; whatever happens, the metrics file is written last. */
export async function runTick<S extends TickState>(
  ctx: TickContext,
  applier: TickApplier<S>,
): Promise<{ readonly outcome: TickOutcome; readonly state: S }> {
  const state = applier.state();
  const journal = keyValueSink(ctx.log);
  let outcome: TickOutcome | undefined;
  const steps = applier.steps;
  try {
    ({ outcome } = await runSteps(ctx, state, {
      steps,
      journal,
      describeError: (error) => failure(error).message,
      ...(ctx.afterStep === undefined ? {} : { afterStep: ctx.afterStep }),
    }));
  } catch (error) {
    outcome = failure(error);
    await rememberFailure(ctx, state, outcome.message);
  }
  outcome ??= { exit: 1, result: 'failed', message: 'the tick ended without an outcome' };
  state.outcome = outcome;
  const metrics = { key: 'metrics', index: steps.length + 1 };
  await writeMetrics(ctx, state, outcome).then(
    (file) =>
      journal.record({
        ...metrics,
        status: 'ok',
        fields: { file, result: outcome.result, exit: outcome.exit },
      }),
    (error: Error) => journal.record({ ...metrics, status: 'failed', reason: error.message }),
  );
  ctx.afterStep?.('metrics');
  return { outcome, state };
}

/** A failed apply of a verified request: the next tick reports `retry` (applied.json stays as it was). */
async function rememberFailure(ctx: TickContext, state: TickState, message: string): Promise<void> {
  const plan = state.plan;
  if (plan === undefined || !plan.evidence.ok || plan.result.decision !== 'apply') return;
  const record = {
    schema: 1,
    channelIdentity: plan.evidence.identity,
    failedAt: ctx.ports.clock.now().toISOString(),
    error: message.slice(0, 4096),
  };
  await ctx.ports.fs
    .writeAtomic(join(ctx.config.HEPHAESTUS_ROOT, FAILED_ATTEMPT_FILE), `${JSON.stringify(record)}\n`, 0o644)
    .catch(() => undefined);
}

async function writeMetrics(ctx: TickContext, state: TickState, outcome: TickOutcome): Promise<string> {
  const { config, ports } = ctx;
  const file = hostPaths.metrics(config.HEPHAESTUS_ROOT, config.HEPHAESTUS_METRICS_FILE);
  const now = ports.clock.now();
  const success = outcome.exit === 0;
  // Only an apply advances the last success: an unchanged channel is no news of a deployment (the seed's metric).
  const applied = outcome.result === 'applied';
  const view = state.applied === undefined ? undefined : appliedView(state.applied);
  const evidence = state.plan?.evidence;
  const channel = evidence?.ok === true ? evidence.channel : undefined;
  const previous = await ports.fs.read(file).catch(() => undefined);
  const text = formatMetrics({
    channel: config.HEPHAESTUS_CHANNEL,
    release: view?.release ?? view?.commit,
    channelCommit: view?.channelCommit,
    success,
    now,
    lastSuccess: applied ? now : lastSuccessFrom(previous?.toString('utf8')),
    toolingPending: await toolingPending(ctx, view),
    freeBytes: (await leastFreeBytes(ctx).catch(() => undefined))?.bytes,
    minFreeBytes: minFreeBytes(config),
    channelVersion: channel?.version,
    channelExpiry: channel?.expires === undefined ? undefined : new Date(channel.expires),
  });
  await ports.fs.writeAtomic(file, text, 0o644);
  const last: LastTick = {
    schema: 1,
    finishedAt: now.toISOString(),
    exit: outcome.exit,
    result: outcome.result,
    decision: state.plan?.result.decision ?? null,
    reason: state.plan?.result.reason ?? null,
    target: state.target?.name ?? null,
    message: outcome.message.slice(0, 4096),
  };
  await ports.fs.writeAtomic(join(config.HEPHAESTUS_ROOT, LAST_TICK_FILE), `${JSON.stringify(last)}\n`, 0o644);
  return file;
}
