export { syncWindowSchema } from './sync-window-schema.ts';
export type { SyncWindow } from './sync-window-schema.ts';
export {
  applicationSchema,
  appProjectSchema,
  applicationSourceSchema,
  destinationSchema,
  operationStateSchema,
} from './application-schema.ts';
export type { Application, AppProject, ApplicationSource, OperationState } from './application-schema.ts';
export { ArgoCdError, parseArgoObject } from './argocd-error.ts';
export type { ArgoCdErrorCode } from './argocd-error.ts';
export { parseGoDuration, formatMinutes } from './go-duration.ts';
export { scheduleProblem, nextStart } from './cron-schedule.ts';
export { zoneOffsetMs, isKnownTimeZone } from './time-zone.ts';
export { globMatch } from './glob-match.ts';
export { windowActive, activeSince } from './window-active.ts';
export { windowMatches, matchingWindows } from './window-matches.ts';
export type { WindowTarget } from './window-matches.ts';
export { canSync, canContinueOperation, syncDecision } from './can-sync.ts';
export type { SyncDecision } from './can-sync.ts';
export {
  syncTasks,
  syncGroups,
  syncWave,
  hookPhases,
  kindOrder,
  SYNC_WAVE,
  HOOK,
  HOOK_DELETE_POLICY,
} from './sync-order.ts';
export type { SyncPhase, SyncTask } from './sync-order.ts';
export { applicationState, settledAt, describeState } from './application-state.ts';
export type { ApplicationState } from './application-state.ts';
export { syncApplications, needsSync } from './sync-applications.ts';
export { SyncError } from './sync-error.ts';
export type { SyncErrorCode } from './sync-error.ts';
