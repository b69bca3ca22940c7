export { LeaseError } from './lease-error.ts';
export type { LeaseErrorCode } from './lease-error.ts';
export {
  leaseRecordSchema,
  isExpired,
  newLease,
  sameLease,
  LEASE_TTL_MS,
  RENEW_EVERY_MS,
} from './lease-record.ts';
export type { LeaseRecord, Holder } from './lease-record.ts';
export { sameHolder, describeHolder, leaseId } from './holder.ts';
export { rfc3339 } from './record-time.ts';
export { OwnershipError } from './ownership-error.ts';
export type { OwnershipErrorCode } from './ownership-error.ts';
export {
  applyOwnershipChanges,
  parseOwnershipData,
  holderSchema,
  deliveryRecordSchema,
  cleanedRecordSchema,
  imageReference,
  imagesSchema,
} from './ownership-records.ts';
export type {
  CleanedRecord,
  DeliveryRecord,
  ImageMap,
  OwnershipChanges,
  OwnershipKey,
  OwnershipRecords,
} from './ownership-records.ts';
export { readOwnership, writeOwnership } from './ownership-store.ts';
export type { OwnershipRef, OwnershipSnapshot } from './ownership-store.ts';
export { decideClaim } from './decide-claim.ts';
export type { ClaimDecision } from './decide-claim.ts';
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
export { cleanupTarget } from './cleanup-target.ts';
export type { CleanupOptions, CleanupOutcome } from './cleanup-target.ts';
export { removeLease, removeLeaseWindows } from './remove-lease.ts';
export type { LeaseTarget } from './remove-lease.ts';
export { readWindows, appendWindow, removeWindows, replaceWindow, windowsOf } from './project-windows.ts';
export type { ProjectWindows } from './project-windows.ts';
export { checkProjectWriter, decideWriter, readFenceAdministrator, PROJECT_WRITER } from './project-writer.ts';
export type { WriterCheck } from './project-writer.ts';
export { leasedApplications, projectsOf } from './lease-projects.ts';
export type { LeasedApplication } from './lease-projects.ts';
export { scaleToZero, viaOf, REPLACED_ANNOTATION, REPLACED_LABEL } from './workload-replacement.ts';
export type { WorkloadReplacement, WorkloadRef, Replacement, Route } from './workload-replacement.ts';
