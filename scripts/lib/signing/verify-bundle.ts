import {
  bundleFromJSON,
  isBundleWithMessageSignature,
  BUNDLE_V02_MEDIA_TYPE,
  BUNDLE_V03_MEDIA_TYPE,
  BUNDLE_V03_LEGACY_MEDIA_TYPE,
} from '@sigstore/bundle';
import { Verifier, toSignedEntity, toTrustMaterial } from '@sigstore/verify';
import type { KeyFinderFunc } from '@sigstore/verify';
import { createHash } from 'node:crypto';
import { HashAlgorithm } from '@sigstore/protobuf-specs';
import { MAX_ARTIFACT_BYTES, tooLarge } from './read-bounded.ts';
import { describePin, identityMatches } from './identity-match.ts';
import { keyHint } from './key-hint.ts';
import { emptyTrustedRoot, publicGoodTrustedRoot } from './trusted-root.ts';
import { VerificationError } from './signing-error.ts';
import type { TrustPolicy, VerifiedSigner } from './trust-policy.ts';

const ACCEPTED_MEDIA_TYPES = new Set([BUNDLE_V02_MEDIA_TYPE, BUNDLE_V03_MEDIA_TYPE, BUNDLE_V03_LEGACY_MEDIA_TYPE]);

export interface VerifyInput {
  /** The exact bytes that were signed, as read (never re-serialised). */
  readonly artifact: Uint8Array;
  readonly bundle: Uint8Array;
  /** Names the artifact in errors, e.g. `channels/production.json`. */
  readonly label: string;
}

function fail(label: string, reason: string, cause?: unknown): VerificationError {
  return new VerificationError('signature', `Cannot verify "${label}": ${reason}`, { cause, details: { file: label } });
}

function keyFinder(policy: Extract<TrustPolicy, { kind: 'keys' }>, label: string): KeyFinderFunc {
  const byHint = new Map(policy.keys.map((key) => [keyHint(key), key]));
  return (hint) => {
    const key = byHint.get(hint) ?? (policy.keys.length === 1 && hint === '' ? policy.keys[0] : undefined);
    if (key === undefined) throw fail(label, `signed by key "${hint}", which is not a trusted key`);
    return { publicKey: key, validFor: () => true };
  };
}

/** Verifies a Sigstore message-signature bundle over exact bytes; throws VerificationError, never anything else. */
export function verifyBundle(input: VerifyInput, policy: TrustPolicy): VerifiedSigner {
  const { label } = input;
  if (input.artifact.byteLength > MAX_ARTIFACT_BYTES) throw tooLarge(label, input.artifact.byteLength);
  if (input.bundle.byteLength > MAX_ARTIFACT_BYTES) throw tooLarge(`${label}.sigstore.json`, input.bundle.byteLength);
  let bundle;
  try {
    const json: unknown = JSON.parse(Buffer.from(input.bundle).toString('utf8'));
    bundle = bundleFromJSON(json);
  } catch (cause) {
    throw fail(label, `bundle is not a Sigstore bundle (${(cause as Error).message})`, cause);
  }
  if (!ACCEPTED_MEDIA_TYPES.has(bundle.mediaType))
    throw fail(label, `bundle media type "${bundle.mediaType}" is not v0.2 or v0.3`);
  // DSSE bundles do not bind the artifact bytes in sigstore-js; a channel or lock is always a message signature.
  if (!isBundleWithMessageSignature(bundle)) throw fail(label, 'bundle holds a DSSE envelope, not a message signature');
  // The signature covers the bytes either way, but a digest of other bytes is an inconsistent bundle (Sigstore conformance).
  const { messageDigest } = bundle.content.messageSignature;
  if (messageDigest.algorithm !== HashAlgorithm.SHA2_256)
    throw fail(label, `bundle message digest uses algorithm ${messageDigest.algorithm}, not SHA2_256`);
  if (!Buffer.from(messageDigest.digest).equals(createHash('sha256').update(input.artifact).digest()))
    throw fail(label, 'bundle message digest is not the SHA-256 of the artifact');
  const keyed = bundle.verificationMaterial.content.$case === 'publicKey';
  if (policy.kind === 'keys' && !keyed)
    throw fail(label, 'bundle is signed with a certificate, but this host trusts public keys');
  if (policy.kind === 'keyless' && keyed)
    throw fail(label, 'bundle is signed with a public key, but this host trusts a keyless identity');
  try {
    const entity = toSignedEntity(bundle, Buffer.from(input.artifact));
    if (policy.kind === 'keys') {
      const root =
        policy.trustedRoot ??
        (bundle.verificationMaterial.tlogEntries.length > 0 ? publicGoodTrustedRoot() : emptyTrustedRoot());
      const verifier = new Verifier(toTrustMaterial(root, keyFinder(policy, label)), {
        tlogThreshold: 0,
        ctlogThreshold: 0,
        timestampThreshold: 0,
      });
      verifier.verify(entity);
      const material = bundle.verificationMaterial.content;
      // Stryker disable next-line ConditionalExpression,StringLiteral: only a public-key bundle reaches this branch (refused above otherwise)
      const hint = material.$case === 'publicKey' ? material.publicKey.hint : '';
      return { signer: `key:${hint}` };
    }
    // Stryker disable next-line ObjectLiteral: these are also sigstore-js's defaults; spelled out so a new default cannot lower them
    const verifier = new Verifier(toTrustMaterial(policy.trustedRoot), {
      tlogThreshold: 1,
      ctlogThreshold: 1,
      timestampThreshold: 1,
    });
    // sigstore-js reads subjectAlternativeName as an unanchored regular expression: compare the SAN here, exactly.
    const signer = verifier.verify(entity, { extensions: { issuer: policy.issuer } });
    // Stryker disable next-line OptionalChaining: a verified certificate always yields an identity with its extensions
    const san = signer.identity?.subjectAlternativeName;
    // Stryker disable next-line OptionalChaining: a verified certificate always yields an identity with its extensions
    const issuer = signer.identity?.extensions?.issuer;
    // Stryker disable all: verify() above already refuses another issuer; this guards a change of that call
    if (issuer !== policy.issuer)
      throw fail(label, `UNTRUSTED_SIGNER_ERROR: certificate issuer "${issuer ?? ''}" is not "${policy.issuer}"`);
    // Stryker restore all
    if (!identityMatches(policy.identity, san))
      throw fail(
        label,
        `UNTRUSTED_SIGNER_ERROR: certificate identity "${san ?? ''}" does not match ${describePin(policy.identity)}`,
      );
    // Stryker disable next-line StringLiteral: a Fulcio certificate always has a SAN, so the fallback is never used
    return { signer: `${san ?? '?'} (${issuer})` };
  } catch (cause) {
    if (cause instanceof VerificationError) throw cause;
    const code = (cause as { code?: unknown }).code;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw fail(label, typeof code === 'string' ? `${code}: ${detail}` : detail, cause);
  }
}
