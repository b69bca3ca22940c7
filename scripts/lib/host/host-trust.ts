import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileBounded } from '../signing/read-bounded.ts';
import { join } from 'node:path';
import { loadTrustedRootFile } from '../signing/trusted-root.ts';
import { tufTrustedRoot } from '../signing/tuf-trusted-root.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { HostError } from './host-error.ts';
import type { HostConfig } from './host-config.ts';

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/** Every PUBLIC KEY block of a PEM file (HEPHAESTUS_TRUSTED_KEYS may hold several, e.g. during key rotation). */
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

/** The policy for channels ('promote') or locks ('release'): trusted keys if set, else the keyless identity under HEPHAESTUS_TRUSTED_ROOT or Sigstore's TUF root. */
export async function hostTrustPolicy(config: HostConfig, role: 'promote' | 'release', log?: (message: string) => void): Promise<TrustPolicy> {
  const file = config.HEPHAESTUS_TRUSTED_ROOT;
  if (config.HEPHAESTUS_TRUSTED_KEYS !== undefined) {
    return { kind: 'keys', keys: await loadPublicKeys(config.HEPHAESTUS_TRUSTED_KEYS), trustedRoot: file === undefined ? undefined : await loadTrustedRootFile(file) };
  }
  const trustedRoot = file !== undefined ? await loadTrustedRootFile(file) : await tufTrustedRoot({ cachePath: join(config.HEPHAESTUS_ROOT, 'cache', 'tuf'), ...(config.HEPHAESTUS_TUF_MIRROR === undefined ? {} : { mirrorURL: config.HEPHAESTUS_TUF_MIRROR }), ...(log === undefined ? {} : { log }) });
  const identity = role === 'promote' ? config.HEPHAESTUS_PROMOTE_IDENTITY : (config.HEPHAESTUS_RELEASE_IDENTITY ?? config.HEPHAESTUS_PROMOTE_IDENTITY);
  if (identity === undefined) throw new HostError('config', `Cannot verify ${role} signatures: set HEPHAESTUS_${role.toUpperCase()}_IDENTITY or HEPHAESTUS_TRUSTED_KEYS`, { exitCode: 2 });
  return { kind: 'keyless', identity, issuer: config.HEPHAESTUS_OIDC_ISSUER, trustedRoot };
}
