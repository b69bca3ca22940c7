export type { TakeoverContext, LeaseState, LeaseStep } from './takeover-context.ts';
export type { StepResult } from '../steps/step.ts';
export { leaseId } from '../ownership/holder.ts';
export { cleanupTarget } from '../ownership/cleanup-target.ts';
export { removeLease } from '../ownership/remove-lease.ts';
export type { CleanupOptions, CleanupOutcome } from '../ownership/cleanup-target.ts';
export { acquire, ACQUIRE_STEPS } from './acquire.ts';
export type { AcquireRequest } from './acquire.ts';
export { handBack, HANDBACK_STEPS, stateFor } from './hand-back.ts';
export { CLEANUP_STEPS, journaledRuntimes, stopRuntimes } from './handback-cleanup.ts';
export { renewOnce } from './renewer.ts';
export { LEASE_TTL_MS, RENEW_EVERY_MS, runRenewals } from './renewal-loop.ts';
export type { RenewalEnd, RenewalLoopOptions } from './renewal-loop.ts';
export type { RenewOutcome } from './renewer.ts';
export { classify, planTakeover } from './plan-takeover.ts';
export type { PlanRow, PlanStatus, PlanOptions } from './plan-takeover.ts';
export { scaleToZero, viaOf, REPLACED_ANNOTATION, REPLACED_LABEL } from '../ownership/workload-replacement.ts';
export type { WorkloadReplacement, WorkloadRef, Replacement, Route } from '../ownership/workload-replacement.ts';
export {
  telepresenceReplacement,
  telepresenceVersion,
  telepresenceBinary,
} from './replacement/telepresence-replacement.ts';
export { describeHandle, runtimeOf } from './runtime/local-runtime.ts';
export type { LocalRuntime, RuntimeHandle, RuntimeRequest } from './runtime/local-runtime.ts';
export { nativeRuntime } from './runtime/native-runtime.ts';
export { dockerRuntime, buildArgs, runArgs } from './runtime/docker-runtime.ts';
export { RUNTIMES } from './runtime/runtimes.ts';
export { workloadEnvironment } from './runtime/workload-env.ts';
export { resolveWorkloads } from './resolve-workloads.ts';
export type { TakeoverTarget } from './resolve-workloads.ts';
export { startSession } from './session.ts';
export { stopLocalFor } from './stop-local.ts';
export type { Session } from './session.ts';
export { readWindows, appendWindow, removeWindows, replaceWindow } from '../ownership/project-windows.ts';
export type { ProjectWindows } from '../ownership/project-windows.ts';
export { makeTakeoverContext } from './make-context.ts';
export type { TakeoverOptions } from './make-context.ts';
export { takeoverStatus, formatStatus } from './status.ts';
export type { TakeoverStatus } from './status.ts';
