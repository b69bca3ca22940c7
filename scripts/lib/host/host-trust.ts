import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { keyHint } from '../signing/key-hint.ts';
import { readFileBounded } from '../signing/read-bounded.ts';
import { loadTrustedRootFile } from '../signing/trusted-root.ts';
import { tufTrustedRoot } from '../signing/tuf-trusted-root.ts';
import type { IdentityPin, TrustPolicy } from '../signing/trust-policy.ts';
import { HostError } from './host-error.ts';
import type { HostConfig } from './host-config.ts';

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/** Channels are signed by promotion, locks (and charts) by release: each is verified only against its own role's trust. */
export type TrustRole = 'promote' | 'release';

/** Every PUBLIC KEY block of a PEM file (a key list may hold several, e.g. during key rotation). */
export async function loadPublicKeys(file: string): Promise<KeyObject[]> {
  const text = (await readFileBounded(file)).toString('utf8');
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new HostError('config', `Cannot read trusted keys "${file}": no PUBLIC KEY block`, { exitCode: 2, details: { file } });
  return blocks.map((block, index) => {
    try {
      return createPublicKey(block);
    } catch (cause) {
      throw new HostError('config', `Cannot read trusted keys "${file}": key ${index + 1} is not a valid public key`, { exitCode: 2, cause, details: { file } });
    }
  });
}

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
  const pattern = role === 'promote' ? config.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN : config.HEPHAESTUS_RELEASE_IDENTITY_PATTERN;
  if (pattern !== undefined) return { kind: 'keyless', identity: { pattern }, variable: `HEPHAESTUS_${upper}_IDENTITY_PATTERN` };
  if (config.HEPHAESTUS_TRUSTED_KEYS !== undefined) return { kind: 'keys', file: config.HEPHAESTUS_TRUSTED_KEYS, variable: 'HEPHAESTUS_TRUSTED_KEYS', shared: true };
  return { kind: 'none' };
}

/** The journal warnings a configuration earns: one trust for both roles lets either signer do the other's job. Pure. */
export function trustWarnings(config: HostConfig): string[] {
  const promote = roleTrust(config, 'promote');
  const release = roleTrust(config, 'release');
  const warnings: string[] = [];
  if ((promote.kind === 'keys' && promote.shared) || (release.kind === 'keys' && release.shared)) {
    warnings.push('HEPHAESTUS_TRUSTED_KEYS trusts the same keys for channels and release locks: a promotion key can sign a release lock and a release key can sign channels; set HEPHAESTUS_PROMOTE_KEYS and HEPHAESTUS_RELEASE_KEYS instead');
  }
  if (promote.kind === 'keyless' && release.kind === 'keyless' && JSON.stringify(promote.identity) === JSON.stringify(release.identity)) {
    warnings.push(`${promote.variable} and ${release.variable} name the same identity: whoever can promote can also sign release locks`);
  }
  return warnings;
}

/** Keys that appear in both roles' lists (by cosign key hint), for a warning once both lists are read. */
export function sharedKeyHints(promote: readonly KeyObject[], release: readonly KeyObject[]): string[] {
  const releaseHints = new Set(release.map((k) => keyHint(k)));
  return promote.map((k) => keyHint(k)).filter((h) => releaseHints.has(h));
}

/** The policy for channels ('promote') or locks ('release'): that role's keys, else its keyless identity under HEPHAESTUS_TRUSTED_ROOT or Sigstore's TUF root. */
export async function hostTrustPolicy(config: HostConfig, role: TrustRole, log?: (message: string) => void): Promise<TrustPolicy> {
  const file = config.HEPHAESTUS_TRUSTED_ROOT;
  const trust = roleTrust(config, role);
  if (trust.kind === 'keys') {
    return { kind: 'keys', keys: await loadPublicKeys(trust.file), trustedRoot: file === undefined ? undefined : await loadTrustedRootFile(file) };
  }
  if (trust.kind === 'none') {
    const upper = role === 'promote' ? 'PROMOTE' : 'RELEASE';
    const what = role === 'promote' ? 'channels' : 'release locks';
    throw new HostError('config', `Cannot verify ${what}: set HEPHAESTUS_${upper}_KEYS (public keys) or HEPHAESTUS_${upper}_IDENTITY (keyless); the other role's trust is never used for them`, { exitCode: 2 });
  }
  const trustedRoot = file !== undefined ? await loadTrustedRootFile(file) : await tufTrustedRoot({ cachePath: join(config.HEPHAESTUS_ROOT, 'cache', 'tuf'), ...(config.HEPHAESTUS_TUF_MIRROR === undefined ? {} : { mirrorURL: config.HEPHAESTUS_TUF_MIRROR }), ...(log === undefined ? {} : { log }) });
  return { kind: 'keyless', identity: trust.identity, issuer: config.HEPHAESTUS_OIDC_ISSUER, trustedRoot };
}
