// What `reconcile-deployment.ts [--plan] [--json]` does, without the argument parser: the timer's call needs none.
import { loadHostConfig } from '../lib/host/load-host-config.ts';
import type { HostConfig } from '../lib/host/host-config.ts';
import type { Clock } from '../lib/ports/clock.ts';
import { acquireFileLock } from '../lib/ports/file-lock.ts';
import { checkHostRoot } from '../lib/host/check-root.ts';
import { hostPaths } from '../lib/host/host-paths.ts';
import { planTick } from '../lib/host/plan-tick.ts';
import { clockFromEnv } from '../lib/host/env-clock.ts';
import { journalLine } from '../lib/host/journal-line.ts';
import { refusalExit } from '../lib/host/steps-decide.ts';
import { trustLoader } from '../lib/host/trust-loader.ts';

/** Exit status of a tick or plan that found another one running (sysexits EX_TEMPFAIL): it touched nothing. */
export const EXIT_TICK_RUNNING = 75;

const log = (step: string, fields: Readonly<Record<string, unknown>>): void => {
  process.stderr.write(journalLine(step, fields));
};

/** One tick, or with `plan` a decision only; the exit status. */
export async function reconcileHandler({
  plan,
  json,
}: {
  readonly plan: boolean;
  readonly json: boolean;
}): Promise<number> {
  const config = await loadHostConfig();
  const clock = clockFromEnv();
  await checkHostRoot(config.HEPHAESTUS_ROOT);
  // One tick at a time, and --plan too: both fetch into the same cache and read applied.json.
  const lock = await acquireFileLock(hostPaths.tickLock(config.HEPHAESTUS_ROOT));
  if (!lock.held) {
    const message = `another tick${lock.holder === undefined ? '' : ` (pid ${lock.holder})`} holds ${hostPaths.tickLock(config.HEPHAESTUS_ROOT)}; nothing was touched`;
    log('lock', { status: 'busy', ...(lock.holder === undefined ? {} : { holder: lock.holder }) });
    if (json)
      process.stdout.write(
        `${JSON.stringify(plan ? { decision: 'busy', reason: 'tick-running', message } : { exit: EXIT_TICK_RUNNING, result: 'busy', message, target: null, reason: 'tick-running' })}\n`,
      );
    else process.stdout.write(`busy: ${message}\n`);
    return EXIT_TICK_RUNNING;
  }
  try {
    return plan ? await runPlan(config, clock, json) : await runOneTick(config, clock, json);
  } finally {
    await lock.release();
  }
}

async function runOneTick(config: HostConfig, clock: Clock, json: boolean): Promise<number> {
  // The tick's steps load only when a tick runs: --plan, the timer's most frequent caller on an unchanged channel, skips them.
  const [{ runTick }, { hostTickContext }, { tickApplier }] = await Promise.all([
    import('../lib/host/run-tick.ts'),
    import('../lib/host/tick-ports.ts'),
    import('./tick-applier.ts'),
  ]);
  const { outcome, state } = await runTick(hostTickContext(config, clock), tickApplier(config));
  const target = state.target?.name ?? null;
  if (json)
    process.stdout.write(`${JSON.stringify({ ...outcome, target, reason: state.plan?.result.reason ?? null })}\n`);
  else process.stdout.write(`${outcome.result}: ${outcome.message}\n`);
  return outcome.exit;
}

async function runPlan(config: HostConfig, clock: Clock, json: boolean): Promise<number> {
  const trust = trustLoader(config, (message) => log('trust', { warning: message }));
  const { result, deployStateCommit } = await planTick(config, () => trust('promote'), clock);
  log('plan', {
    decision: result.decision,
    reason: result.reason,
    environment: config.HEPHAESTUS_CHANNEL,
    deployState: deployStateCommit,
  });
  const out = {
    decision: result.decision,
    reason: result.reason,
    environment: result.environment,
    version: result.version,
    target: result.target,
    message: result.message,
    deployStateCommit,
  };
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    const shown =
      result.target === null ? '-' : 'release' in result.target ? result.target.release : result.target.commit;
    process.stdout.write(
      `decision: ${result.decision} (${result.reason})\nenvironment: ${config.HEPHAESTUS_CHANNEL}\nversion: ${result.version ?? '-'}\ntarget: ${shown}\n${result.message}\n`,
    );
  }
  if (result.decision === 'stale') return 3;
  return result.decision === 'refuse' ? refusalExit(result.reason) : 0;
}
