import { lazyComposePort } from '../ports/compose.ts';
import { dockerPort } from '../ports/docker.ts';
import { exec } from '../ports/exec.ts';
import { nodeFs } from '../ports/fs.ts';
import { gitPort } from '../ports/git.ts';
import type { Clock } from '../ports/clock.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { trustWarnings } from './role-trust.ts';
import type { TrustRole } from './role-trust.ts';
import type { HostConfig } from './host-config.ts';
import { journalLine } from './journal-line.ts';
import type { TickContext } from './tick-context.ts';

/** Each role's policy once per tick; loading the release role warns if one key is trusted for both. */
export function trustLoader(
  config: HostConfig,
  warn: (message: string) => void,
): (role: TrustRole) => Promise<TrustPolicy> {
  const loaded = new Map<TrustRole, Promise<TrustPolicy>>();
  for (const message of trustWarnings(config)) warn(message);
  // Keys, trusted roots and Sigstore's modules load only when a signature is checked: an unchanged tick checks none.
  const load = async (role: TrustRole): Promise<TrustPolicy> =>
    (await import('./host-trust.ts')).hostTrustPolicy(config, role, warn);
  const loadRelease = async (): Promise<TrustPolicy> => {
    const { sharedKeyHints } = await import('./host-trust.ts');
    const release = await load('release');
    const promote = await loaded.get('promote')?.catch(() => undefined);
    if (promote?.kind === 'keys' && release.kind === 'keys' && config.HEPHAESTUS_TRUSTED_KEYS === undefined) {
      const shared = sharedKeyHints(promote.keys, release.keys);
      if (shared.length > 0)
        warn(
          `HEPHAESTUS_PROMOTE_KEYS and HEPHAESTUS_RELEASE_KEYS both trust key ${shared.join(', ')}: that key can sign channels and release locks`,
        );
    }
    return release;
  };
  return (role) => {
    let policy = loaded.get(role);
    if (policy === undefined) {
      policy = role === 'release' ? loadRelease() : load(role);
      loaded.set(role, policy);
    }
    return policy;
  };
}

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
