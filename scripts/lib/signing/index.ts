export { VerificationError } from './signing-error.ts';
export type { VerificationErrorCode } from './signing-error.ts';
export { readFileBounded, tooLarge, MAX_ARTIFACT_BYTES } from './read-bounded.ts';
export { keyHint } from './key-hint.ts';
export {
  parseTrustedRoot,
  checkTrustedRoot,
  loadTrustedRootFile,
  publicGoodTrustedRoot,
  emptyTrustedRoot,
} from './trusted-root.ts';
export type { TrustedRoot } from './trusted-root.ts';
export type { TrustPolicy, VerifiedSigner } from './trust-policy.ts';
export { verifyBundle } from './verify-bundle.ts';
export type { VerifyInput } from './verify-bundle.ts';
export { loadSigningKey, signWithKey } from './sign-with-key.ts';
export { signKeyless } from './sign-keyless.ts';
export type { KeylessOptions } from './sign-keyless.ts';
export { tufTrustedRoot } from './tuf-trusted-root.ts';
export type { TufOptions } from './tuf-trusted-root.ts';
export { identityMatches, identityRegExp, describePin } from './identity-match.ts';
export type { IdentityPin } from './trust-policy.ts';
