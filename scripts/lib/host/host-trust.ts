import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { keyHint } from '../signing/key-hint.ts';
import { readRegularFile, RegularFileError } from '../ports/regular-file.ts';
import { MAX_ARTIFACT_BYTES } from '../signing/read-bounded.ts';
import { loadTrustedRootFile } from '../signing/trusted-root.ts';
import { tufTrustedRoot } from '../signing/tuf-trusted-root.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { roleTrust } from './role-trust.ts';
import type { TrustRole } from './role-trust.ts';
import { HostError } from './host-error.ts';
import type { HostConfig } from './host-config.ts';

export { roleTrust, trustWarnings } from './role-trust.ts';
export type { RoleTrust, TrustRole } from './role-trust.ts';

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/** Every PUBLIC KEY block of a PEM file (a key list may hold several, e.g. during key rotation). */
export async function loadPublicKeys(file: string): Promise<KeyObject[]> {
  // A key list is read like every key file: a regular file, never through a symlink, never a FIFO (which would block).
  const bytes = await readRegularFile(file, MAX_ARTIFACT_BYTES).catch((cause: unknown) => {
    if (cause instanceof RegularFileError)
      throw new HostError('config', `Cannot read trusted keys "${file}": ${cause.reason}`, {
        exitCode: 2,
        cause,
        details: { file },
      });
    throw cause;
  });
  const text = bytes.bytes.toString('utf8');
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0)
    throw new HostError('config', `Cannot read trusted keys "${file}": no PUBLIC KEY block`, {
      exitCode: 2,
      details: { file },
    });
  return blocks.map((block, index) => {
    try {
      return createPublicKey(block);
    } catch (cause) {
      throw new HostError('config', `Cannot read trusted keys "${file}": key ${index + 1} is not a valid public key`, {
        exitCode: 2,
        cause,
        details: { file },
      });
    }
  });
}

/** Keys that appear in both roles' lists (by cosign key hint), for a warning once both lists are read. */
export function sharedKeyHints(promote: readonly KeyObject[], release: readonly KeyObject[]): string[] {
  const releaseHints = new Set(release.map((k) => keyHint(k)));
  return promote.map((k) => keyHint(k)).filter((h) => releaseHints.has(h));
}

/** The policy for channels ('promote') or locks ('release'): that role's keys, else its keyless identity under HEPHAESTUS_TRUSTED_ROOT or Sigstore's TUF root. */
export async function hostTrustPolicy(
  config: HostConfig,
  role: TrustRole,
  log?: (message: string) => void,
): Promise<TrustPolicy> {
  const file = config.HEPHAESTUS_TRUSTED_ROOT;
  const trust = roleTrust(config, role);
  if (trust.kind === 'keys') {
    return {
      kind: 'keys',
      keys: await loadPublicKeys(trust.file),
      trustedRoot: file === undefined ? undefined : await loadTrustedRootFile(file),
    };
  }
  if (trust.kind === 'none') {
    const upper = role === 'promote' ? 'PROMOTE' : 'RELEASE';
    const what = role === 'promote' ? 'channels' : 'release locks';
    throw new HostError(
      'config',
      `Cannot verify ${what}: set HEPHAESTUS_${upper}_KEYS (public keys) or HEPHAESTUS_${upper}_IDENTITY (keyless); the other role's trust is never used for them`,
      { exitCode: 2 },
    );
  }
  const trustedRoot =
    file !== undefined
      ? await loadTrustedRootFile(file)
      : await tufTrustedRoot({
          cachePath: join(config.HEPHAESTUS_ROOT, 'cache', 'tuf'),
          ...(config.HEPHAESTUS_TUF_MIRROR === undefined ? {} : { mirrorURL: config.HEPHAESTUS_TUF_MIRROR }),
          ...(log === undefined ? {} : { log }),
        });
  return { kind: 'keyless', identity: trust.identity, issuer: config.HEPHAESTUS_OIDC_ISSUER, trustedRoot };
}
