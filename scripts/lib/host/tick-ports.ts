import { lazyComposePort } from '../ports/compose.ts';
import { dockerPort } from '../ports/docker.ts';
import { exec } from '../ports/exec.ts';
import { nodeFs } from '../ports/fs.ts';
import { gitPort } from '../ports/git.ts';
import type { Clock } from '../ports/clock.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { hostTrustPolicy } from './host-trust.ts';
import type { HostConfig } from './host-config.ts';
import { journalLine } from './journal-line.ts';
import type { TickContext } from './tick-context.ts';

async function loadPolicies(config: HostConfig): Promise<{ promote: TrustPolicy; release: TrustPolicy }> {
  const trustLog = (message: string) => process.stderr.write(journalLine('trust', { message }));
  return { promote: await hostTrustPolicy(config, 'promote', trustLog), release: await hostTrustPolicy(config, 'release', trustLog) };
}

/** The real ports for a tick on this host, journaling to stderr. */
export function hostTickContext(config: HostConfig, clock: Clock, afterStep?: (step: string) => void): TickContext {
  let policies: Promise<{ promote: TrustPolicy; release: TrustPolicy }> | undefined;
  return {
    config,
    log: (step, fields) => process.stderr.write(journalLine(step, fields)),
    ports: { exec, git: (dir) => gitPort(dir, exec), compose: lazyComposePort(config.HEPHAESTUS_COMPOSE, exec), docker: dockerPort(exec), fs: nodeFs, clock },
    policies: () => (policies ??= loadPolicies(config)),
    ...(afterStep === undefined ? {} : { afterStep }),
  };
}
