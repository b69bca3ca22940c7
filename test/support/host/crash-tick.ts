// Runs one real tick in its own process and SIGKILLs itself right after the named step is journaled:
// a crash at a step boundary (no finally, no cleanup). Usage: crash-tick.ts <step>; configuration from HEPHAESTUS_*.
import { loadHostConfig } from '../../../scripts/lib/host/load-host-config.ts';
import { clockFromEnv } from '../../../scripts/lib/host/env-clock.ts';
import { runTick } from '../../../scripts/lib/host/run-tick.ts';
import { hostTickContext } from '../../../scripts/lib/host/tick-ports.ts';
import { tickApplier } from '../../../scripts/commands/tick-applier.ts';

const step = process.argv[2] ?? '';
const config = await loadHostConfig();
await runTick(
  hostTickContext(config, clockFromEnv(), (done) => {
    if (done === step) process.kill(process.pid, 'SIGKILL');
  }),
  tickApplier(config),
);
process.stderr.write(`crash-tick: step "${step}" was never reached\n`);
process.exit(4);
