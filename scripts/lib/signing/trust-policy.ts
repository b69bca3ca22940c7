import type { KeyObject } from 'node:crypto';
import type { TrustedRoot } from './trusted-root.ts';

/**
 * Which certificate identity (SAN) may sign: a string is matched exactly; `{ pattern }` is an anchored regular
 * expression (cosign's --certificate-identity-regexp), only for sites that configure one by name.
 */
export type IdentityPin = string | { readonly pattern: string };

/** Who may sign: pinned public keys, or one keyless identity (SAN + exact OIDC issuer) under a trusted root. */
export type TrustPolicy =
  /** `trustedRoot` checks log entries a key bundle carries (cosign uploads to Rekor); without one, public good's root from the TUF seed. */
  | { readonly kind: 'keys'; readonly keys: readonly KeyObject[]; readonly trustedRoot?: TrustedRoot | undefined }
  | {
      readonly kind: 'keyless';
      readonly identity: IdentityPin;
      readonly issuer: string;
      readonly trustedRoot: TrustedRoot;
    };

export interface VerifiedSigner {
  /** `key:<hint>` or `<SAN> (<issuer>)`, for logs. */
  readonly signer: string;
}
