// `reconcile-deployment.ts status`: what this host runs and why, read-only (no fetch, no lock).
import { command, flag } from 'cmd-ts';
import { exec } from '../lib/ports/exec.ts';
import { clockFromEnv } from '../lib/host/env-clock.ts';
import { formatStatus, hostStatus } from '../lib/host/host-status.ts';
import { loadHostConfig } from '../lib/host/load-host-config.ts';
import { hostTickContext } from '../lib/host/tick-ports.ts';
import { tickApplier } from './tick-applier.ts';

export const statusCommand = command({
  name: 'reconcile-deployment status',
  description:
    'What this host runs and why: the applied release and the signed request it came from (verified again from the local cache),\n' +
    'each service of HEPHAESTUS_STACKS with its image digest, state and health, how the last tick ended, the tooling link,\n' +
    "free space on Docker's file systems and the next timer run. Reads only: no fetch, no lock, safe while a tick runs.\n" +
    'Exit status: 0 reported, 2 configuration error.',
  args: {
    json: flag({ long: 'json', description: 'print one JSON object instead of lines' }),
  },
  handler: async ({ json }) => {
    const config = await loadHostConfig();
    const ctx = hostTickContext(config, clockFromEnv(), undefined, () => undefined);
    const status = await hostStatus(ctx, exec, tickApplier(config).services);
    process.stdout.write(json ? `${JSON.stringify(status)}\n` : formatStatus(status));
    return 0;
  },
});
