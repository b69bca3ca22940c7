// Host reconciler command (spec: pull-deployment.md): one tick by default, --plan to decide only.
import { mkdir } from 'node:fs/promises';
import { command, flag } from 'cmd-ts';
import { loadHostConfig } from './load-host-config.ts';
import { hostTrustPolicy } from './host-trust.ts';
import { planTick } from './plan-tick.ts';
import { clockFromEnv } from './env-clock.ts';
import { journalLine } from './journal-line.ts';
import { runTick } from './run-tick.ts';
import { hostTickContext } from './tick-ports.ts';

const log = (step: string, fields: Readonly<Record<string, unknown>>): void => {
  process.stderr.write(journalLine(step, fields));
};

/** The cmd-ts command of scripts/reconcile-deployment.ts (loaded after the compile cache is on). */
export const reconcileCommand = command({
  name: 'reconcile-deployment',
  description:
    'Reconcile this host with its signed channel on deploy-state (configuration: HEPHAESTUS_* variables and /etc/hephaestus/reconcile.env).\n' +
    'Without flags: one tick (read, decide, prepare, render, pull, migrate, stop-worker, up, record, metrics), one journal line per step on stderr.\n' +
    '--plan fetches deploy-state, verifies the channel, decides, prints the decision and changes nothing.\n' +
    'Exit status: 0 applied or nothing to do, 1 refused or failed (the previous release keeps running; the next tick tries again),\n' +
    '2 configuration or usage error, 3 operator action required (stale channel, modified worktree, unidentifiable worker).',
  args: {
    plan: flag({ long: 'plan', description: 'decide only; print {"decision","reason","environment","version","target"}' }),
    json: flag({ long: 'json', description: 'print the plan, or the tick outcome {"exit","result","message","target","reason"}, as one JSON object' }),
  },
  handler: async ({ plan, json }) => {
    const config = await loadHostConfig();
    const clock = clockFromEnv();
    if (!plan) {
      await mkdir(config.HEPHAESTUS_ROOT, { recursive: true });
      const { outcome, state } = await runTick(hostTickContext(config, clock));
      const target = state.target?.name ?? null;
      if (json) process.stdout.write(`${JSON.stringify({ ...outcome, target, reason: state.plan?.result.reason ?? null })}\n`);
      else process.stdout.write(`${outcome.result}: ${outcome.message}\n`);
      return outcome.exit;
    }
    const policy = await hostTrustPolicy(config, 'promote', (message) => log('trust', { message }));
    const { result, deployStateCommit } = await planTick(config, policy, clock);
    log('plan', { decision: result.decision, reason: result.reason, environment: config.HEPHAESTUS_CHANNEL, deployState: deployStateCommit });
    const out = { decision: result.decision, reason: result.reason, environment: result.environment, version: result.version, target: result.target, message: result.message, deployStateCommit };
    if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      const shown = result.target === null ? '-' : 'release' in result.target ? result.target.release : result.target.commit;
      process.stdout.write(`decision: ${result.decision} (${result.reason})\nenvironment: ${config.HEPHAESTUS_CHANNEL}\nversion: ${result.version ?? '-'}\ntarget: ${shown}\n${result.message}\n`);
    }
    if (result.decision === 'stale') return 3;
    return result.decision === 'refuse' ? 1 : 0;
  },
});
