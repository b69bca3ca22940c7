import type { TrustPolicy } from '../signing/trust-policy.ts';
import { trustWarnings } from './role-trust.ts';
import type { TrustRole } from './role-trust.ts';
import type { HostConfig } from './host-config.ts';

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
