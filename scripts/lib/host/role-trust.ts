import type { IdentityPin } from '../signing/trust-policy.ts';
import type { HostConfig } from './host-config.ts';

/** Channels are signed by promotion, locks (and charts) by release: each is verified only against its own role's trust. */
export type TrustRole = 'promote' | 'release';

/** What a role is configured to trust, in precedence order: its own keys, its own identity, then the shared key list. Pure. */
export type RoleTrust =
  | { readonly kind: 'keys'; readonly file: string; readonly variable: string; readonly shared: boolean }
  | { readonly kind: 'keyless'; readonly identity: IdentityPin; readonly variable: string }
  | { readonly kind: 'none' };

export function roleTrust(config: HostConfig, role: TrustRole): RoleTrust {
  const upper = role === 'promote' ? 'PROMOTE' : 'RELEASE';
  const keys = role === 'promote' ? config.HEPHAESTUS_PROMOTE_KEYS : config.HEPHAESTUS_RELEASE_KEYS;
  if (keys !== undefined) return { kind: 'keys', file: keys, variable: `HEPHAESTUS_${upper}_KEYS`, shared: false };
  const identity = role === 'promote' ? config.HEPHAESTUS_PROMOTE_IDENTITY : config.HEPHAESTUS_RELEASE_IDENTITY;
  if (identity !== undefined) return { kind: 'keyless', identity, variable: `HEPHAESTUS_${upper}_IDENTITY` };
  const pattern =
    role === 'promote' ? config.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN : config.HEPHAESTUS_RELEASE_IDENTITY_PATTERN;
  if (pattern !== undefined)
    return { kind: 'keyless', identity: { pattern }, variable: `HEPHAESTUS_${upper}_IDENTITY_PATTERN` };
  if (config.HEPHAESTUS_TRUSTED_KEYS !== undefined)
    return { kind: 'keys', file: config.HEPHAESTUS_TRUSTED_KEYS, variable: 'HEPHAESTUS_TRUSTED_KEYS', shared: true };
  return { kind: 'none' };
}

/** The journal warnings a configuration earns: one trust for both roles lets either signer do the other's job. Pure. */
export function trustWarnings(config: HostConfig): string[] {
  const promote = roleTrust(config, 'promote');
  const release = roleTrust(config, 'release');
  const warnings: string[] = [];
  if ((promote.kind === 'keys' && promote.shared) || (release.kind === 'keys' && release.shared)) {
    warnings.push(
      'HEPHAESTUS_TRUSTED_KEYS trusts the same keys for channels and release locks: a promotion key can sign a release lock and a release key can sign channels; set HEPHAESTUS_PROMOTE_KEYS and HEPHAESTUS_RELEASE_KEYS instead',
    );
  }
  if (
    promote.kind === 'keyless' &&
    release.kind === 'keyless' &&
    JSON.stringify(promote.identity) === JSON.stringify(release.identity)
  ) {
    warnings.push(
      `${promote.variable} and ${release.variable} name the same identity: whoever can promote can also sign release locks`,
    );
  }
  return warnings;
}
