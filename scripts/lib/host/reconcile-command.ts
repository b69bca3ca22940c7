// Host reconciler command (spec: pull-deployment.md). This release implements --plan: fetch, verify, decide, change nothing.
import { command, flag } from 'cmd-ts';
import { HostError } from './host-error.ts';
import { loadHostConfig } from './load-host-config.ts';
import { hostTrustPolicy } from './host-trust.ts';
import { planTick } from './plan-tick.ts';
import { clockFromEnv } from './env-clock.ts';

const log = (step: string, fields: Record<string, unknown>): void => {
  process.stderr.write(`reconcile-deployment: ${step} ${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}\n`);
};

/** The cmd-ts command of scripts/reconcile-deployment.ts (loaded after the compile cache is on). */
export const reconcileCommand = command({
  name: 'reconcile-deployment',
  description:
    'Reconcile this host with its signed channel on deploy-state (configuration: HEPHAESTUS_* variables and /etc/hephaestus/reconcile.env).\n' +
    '--plan fetches deploy-state, verifies the channel, decides, prints the decision and changes nothing.\n' +
    'Exit status with --plan: 0 apply or noop, 1 refuse or failure, 2 configuration or usage error, 3 stale channel (operator action).',
  args: {
    plan: flag({ long: 'plan', description: 'decide only; print {"decision","reason","environment","version","target"}' }),
    json: flag({ long: 'json', description: 'print the plan as one JSON object' }),
  },
  handler: async ({ plan, json }) => {
    if (!plan) throw new HostError('not-implemented', 'apply is not implemented yet; run with --plan', { exitCode: 2 });
    const config = await loadHostConfig();
    const policy = await hostTrustPolicy(config, 'promote', (message) => log('trust', { message }));
    const { result, deployStateCommit } = await planTick(config, policy, clockFromEnv());
    log('plan', { decision: result.decision, reason: result.reason, environment: config.HEPHAESTUS_CHANNEL, deployState: deployStateCommit });
    const out = { decision: result.decision, reason: result.reason, environment: result.environment, version: result.version, target: result.target, message: result.message, deployStateCommit };
    if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      const target = result.target === null ? '-' : 'release' in result.target ? result.target.release : result.target.commit;
      process.stdout.write(`decision: ${result.decision} (${result.reason})\nenvironment: ${config.HEPHAESTUS_CHANNEL}\nversion: ${result.version ?? '-'}\ntarget: ${target}\n${result.message}\n`);
    }
    if (result.decision === 'stale') return 3;
    return result.decision === 'refuse' ? 1 : 0;
  },
});

