import { lazyComposePort } from '../ports/compose.ts';
import { dockerPort } from '../ports/docker.ts';
import { exec } from '../ports/exec.ts';
import { nodeFs } from '../ports/fs.ts';
import { gitPort } from '../ports/git.ts';
import type { Clock } from '../ports/clock.ts';
import { trustLoader } from './trust-loader.ts';
import type { HostConfig } from './host-config.ts';
import { journalLine } from './journal-line.ts';
import type { TickContext } from './tick-context.ts';

export { trustLoader } from './trust-loader.ts';

/** The real ports for a tick on this host, journaling to stderr. */
export function hostTickContext(
  config: HostConfig,
  clock: Clock,
  afterStep?: (step: string) => void,
  journal?: TickContext['log'],
): TickContext {
  const log =
    journal ??
    ((step: string, fields: Readonly<Record<string, unknown>>) => void process.stderr.write(journalLine(step, fields)));
  return {
    config,
    log,
    ports: {
      exec,
      git: (dir) => gitPort(dir, exec),
      compose: lazyComposePort(config.HEPHAESTUS_COMPOSE, exec),
      docker: dockerPort(exec),
      fs: nodeFs,
      clock,
    },
    trust: trustLoader(config, (message) => log('trust', { warning: message })),
    ...(afterStep === undefined ? {} : { afterStep }),
  };
}
