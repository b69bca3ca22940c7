export { appliedV2Schema, appliedLegacySchema, appliedView } from './applied-record.ts';
export type { AppliedV2, AppliedLegacy, AppliedView, AppliedRecord } from './applied-record.ts';
export { readApplied, parseApplied, APPLIED_FILE } from './read-applied.ts';
export { HostError } from './host-error.ts';
export type { HostErrorCode } from './host-error.ts';
export { hostConfigSchema, GITHUB_OIDC_ISSUER } from './host-config.ts';
export type { HostConfig } from './host-config.ts';
export { loadHostConfig, parseEnvFile, CONFIG_FILE } from './load-host-config.ts';
export { hostTrustPolicy, loadPublicKeys, roleTrust, trustWarnings, sharedKeyHints } from './host-trust.ts';
export type { TrustRole, RoleTrust } from './host-trust.ts';
export {
  fetchDeployState,
  fetchDeployStateRef,
  resolveCommit,
  readBlobs,
  readBlobsWith,
  isAncestor,
} from './deploy-state-cache.ts';
export type { DeployStateCheckout, FetchedDeployState, BlobRead } from './deploy-state-cache.ts';
export { channelEvidence, evidenceFromBytes, evidenceFromReads } from './channel-evidence.ts';
export { identityAt, channelFiles, channelPath } from './channel-unchanged.ts';
export { failedAttemptSchema, readFailedAttempt, FAILED_ATTEMPT_FILE } from './failed-attempt.ts';
export type { FailedAttempt } from './failed-attempt.ts';
export { planTick } from './plan-tick.ts';
export type { PlanResult } from './plan-tick.ts';
export { fetchBounded } from './fetch-bounded.ts';
export { verifiedReleaseLock, writeLockEnv, lockEnvPath, commitLockEnv } from './release-lock.ts';
export type { LockSource } from './release-lock.ts';
export { clockFromEnv } from './env-clock.ts';
export { enableHostCompileCache } from './host-compile-cache.ts';
export { runTick } from './run-tick.ts';
export type { TickApplier } from './tick-applier.ts';
export { hostTickContext } from './tick-ports.ts';
export type {
  TickContext,
  TickState,
  TickOutcome,
  Step,
  TickStep,
  StepResult,
  Target,
  TickPorts,
} from './tick-context.ts';
export { ApplyError } from './apply-error.ts';
export type { ApplyErrorCode } from './apply-error.ts';
export { formatMetrics, escapeLabel, lastSuccessFrom } from './metrics.ts';
export type { MetricsInput } from './metrics.ts';
export { hostPaths, stacksOf } from './host-paths.ts';
export { journalLine } from './journal-line.ts';
