export { LeaseError } from './lease-error.ts';
export type { LeaseErrorCode } from './lease-error.ts';
export {
  leaseRecordSchema,
  isExpired,
  newLease,
  sameLease,
  describeHolder,
  LEASE_TTL_MS,
  RENEW_EVERY_MS,
} from './lease-record.ts';
export type { LeaseRecord, Holder } from './lease-record.ts';
export { leaseWindow, windowSchedule, windowMinutes, isOurWindow, isLeaseShaped } from './lease-window.ts';
export type { LeaseWindow } from './lease-window.ts';
export { decideAcquire } from './decide-acquire.ts';
export type { AcquireDecision, AcquireInput } from './decide-acquire.ts';
export { decideRenew } from './decide-renew.ts';
export type { RenewDecision } from './decide-renew.ts';
export { decideRelease } from './decide-release.ts';
export type { ReleaseDecision } from './decide-release.ts';
export { decideCleanup } from './decide-cleanup.ts';
export type { CleanupAction } from './decide-cleanup.ts';
