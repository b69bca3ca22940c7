import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { UsageError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { GITHUB_OIDC_ISSUER } from '../host/host-config.ts';
import { loadPublicKeys } from '../host/host-trust.ts';
import { loadSigningKey } from '../signing/sign-with-key.ts';
import { loadTrustedRootFile, publicGoodTrustedRoot } from '../signing/trusted-root.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { readKeyFile } from './read-key-file.ts';

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const setting = z.preprocess(unsetIfEmpty, z.string().min(1).optional());

/** The hosts' promotion-trust variables, read the same way by the promotion that must verify the channel it replaces. */
const envSchema = z
  .object({
    HEPHAESTUS_PROMOTE_KEYS: setting,
    HEPHAESTUS_PROMOTE_IDENTITY: setting,
    HEPHAESTUS_PROMOTE_IDENTITY_PATTERN: setting,
    HEPHAESTUS_OIDC_ISSUER: setting,
    HEPHAESTUS_TRUSTED_ROOT: setting,
  })
  .refine((e) => e.HEPHAESTUS_PROMOTE_IDENTITY === undefined || e.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN === undefined, {
    message: 'set HEPHAESTUS_PROMOTE_IDENTITY or HEPHAESTUS_PROMOTE_IDENTITY_PATTERN, not both',
    path: ['HEPHAESTUS_PROMOTE_IDENTITY_PATTERN'],
  });

export interface TrustChoice {
  /** `--key`: without other trust, the channel must verify with this key's own public key. */
  readonly key: string | undefined;
  readonly keyless: boolean;
}

/**
 * Who may have signed the channel a promotion replaces, in the hosts' order: HEPHAESTUS_PROMOTE_KEYS, else the keyless
 * HEPHAESTUS_PROMOTE_IDENTITY (or _PATTERN) under HEPHAESTUS_TRUSTED_ROOT or public good's root, else the public half
 * of `--key`. `--keyless` alone names no identity, so it is a usage error (exit 2).
 */
export async function promotionTrust(choice: TrustChoice, env: NodeJS.ProcessEnv = process.env): Promise<TrustPolicy> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    throw new UsageError(
      `Cannot verify the current channel:\n${describeZodIssues('environment', env, parsed.error).join('\n')}`,
    );
  const e = parsed.data;
  if (e.HEPHAESTUS_PROMOTE_KEYS !== undefined) {
    const trustedRoot =
      e.HEPHAESTUS_TRUSTED_ROOT === undefined ? undefined : await loadTrustedRootFile(e.HEPHAESTUS_TRUSTED_ROOT);
    return { kind: 'keys', keys: await loadPublicKeys(e.HEPHAESTUS_PROMOTE_KEYS), trustedRoot };
  }
  const identity =
    e.HEPHAESTUS_PROMOTE_IDENTITY ??
    (e.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN === undefined
      ? undefined
      : { pattern: e.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN });
  if (identity !== undefined) {
    const trustedRoot =
      e.HEPHAESTUS_TRUSTED_ROOT === undefined
        ? publicGoodTrustedRoot()
        : await loadTrustedRootFile(e.HEPHAESTUS_TRUSTED_ROOT);
    return { kind: 'keyless', identity, issuer: e.HEPHAESTUS_OIDC_ISSUER ?? GITHUB_OIDC_ISSUER, trustedRoot };
  }
  if (choice.key !== undefined) {
    const key = loadSigningKey(await readKeyFile(choice.key), choice.key);
    return { kind: 'keys', keys: [createPublicKey(key)] };
  }
  throw new UsageError(
    'Cannot verify the current channel: --keyless needs HEPHAESTUS_PROMOTE_IDENTITY (the identity hosts pin) or HEPHAESTUS_PROMOTE_KEYS',
  );
}
