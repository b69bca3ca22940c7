// Host reconciler command (spec: pull-deployment.md): one tick by default, --plan to decide only.
import { command, flag } from 'cmd-ts';

export const reconcileArgs = {
  plan: flag({
    long: 'plan',
    description: 'decide only; print {"decision","reason","environment","version","target"}',
  }),
  json: flag({
    long: 'json',
    description:
      'print the plan, or the tick outcome {"exit","result","message","target","reason"}, as one JSON object',
  }),
};

/** The cmd-ts command of scripts/reconcile-deployment.ts (loaded after the compile cache is on). */
export const reconcileCommand = command({
  name: 'reconcile-deployment',
  description:
    'Reconcile this host with its signed channel on deploy-state (configuration: HEPHAESTUS_* variables and /etc/hephaestus/reconcile.env).\n' +
    'Without flags: one tick (read, adopt-pending, decide, prepare, render, pull, migrate, stop-worker, up, record, adopt, prune, metrics), one journal line per step on stderr.\n' +
    'With HEPHAESTUS_STACKS=chart the tick applies the Helm chart instead (read, adopt-pending, decide, prepare, values, recover, upgrade, record, adopt, prune, metrics; docs/chart-host.md).\n' +
    '--plan fetches deploy-state, verifies the channel, decides, prints the decision and changes nothing.\n' +
    '`reconcile-deployment.ts status [--json]` reports what the host runs and why (see status --help).\n' +
    'Exit status: 0 applied or nothing to do, 1 refused or failed (the previous release keeps running; the next tick tries again),\n' +
    '2 configuration or usage error (also an untrusted HEPHAESTUS_ROOT: owned by another user or writable by group or others),\n' +
    '3 operator action required (stale channel, modified worktree, unidentifiable worker, major downgrade),\n' +
    '75 another tick or plan holds <root>/tick.lock: this run touched nothing.',
  args: reconcileArgs,
  // Loaded when it runs: --help and usage errors load the parser only.
  handler: async (args) => (await import('./reconcile-handler.ts')).reconcileHandler(args),
});
