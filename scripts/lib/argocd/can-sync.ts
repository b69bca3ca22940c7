// SyncWindows.CanSync over the windows matching an Application: deny beats allow; manualSync lets manual syncs pass.
import type { SyncWindow } from './sync-window-schema.ts';
import { activeSince } from './window-active.ts';
import { matchingWindows } from './window-matches.ts';
import type { WindowTarget } from './window-matches.ts';

export interface SyncDecision {
  readonly allowed: boolean;
  /** Why, in Argo CD's terms. */
  readonly reason:
    | 'no-windows'
    | 'active-deny'
    | 'active-deny-manual'
    | 'active-allow'
    | 'inactive-allow'
    | 'inactive-allow-manual'
    | 'no-active-window';
  /** The active matching windows and when their current occurrence started. */
  readonly active: readonly { readonly window: SyncWindow; readonly since: Date }[];
  readonly matching: readonly SyncWindow[];
}

export function syncDecision(
  windows: readonly SyncWindow[] | undefined,
  app: WindowTarget,
  now: Date,
  options: { manual: boolean },
): SyncDecision {
  return decideAt(matchingWindows(windows, app), now, now, options.manual);
}

// SyncWindows.canSyncAtTime over the matching windows; zone offsets are taken at `offsetAt` (Argo CD: the real now).
function decideAt(matching: readonly SyncWindow[], at: Date, offsetAt: Date, manual: boolean): SyncDecision {
  const active = matching.flatMap((window) => {
    const since = activeSince(window, at, offsetAt);
    return since === undefined ? [] : [{ window, since }];
  });
  const decide = (allowed: boolean, reason: SyncDecision['reason']): SyncDecision => ({
    allowed,
    reason,
    active,
    matching,
  });
  if (matching.length === 0) return decide(true, 'no-windows');
  const denies = active.filter((a) => a.window.kind === 'deny');
  if (denies.length > 0) {
    const manualEnabled = denies.every((a) => a.window.manualSync === true);
    return manual && manualEnabled ? decide(true, 'active-deny-manual') : decide(false, 'active-deny');
  }
  // Stryker disable next-line ConditionalExpression: equivalent: with no active deny, every active window is an allow
  if (active.some((a) => a.window.kind === 'allow')) return decide(true, 'active-allow');
  const inactiveAllows = matching.filter((w) => w.kind === 'allow');
  if (inactiveAllows.length > 0) {
    const manualEnabled = inactiveAllows.every((w) => w.manualSync === true);
    return manual && manualEnabled ? decide(true, 'inactive-allow-manual') : decide(false, 'inactive-allow');
  }
  return decide(true, 'no-active-window');
}

/** Argo CD's `proj.Spec.SyncWindows.Matches(app).CanSync(isManual)`. */
export function canSync(
  windows: readonly SyncWindow[] | undefined,
  app: WindowTarget,
  now: Date,
  options: { manual: boolean },
): boolean {
  return syncDecision(windows, app, now, options).allowed;
}

/**
 * Whether an operation already running may proceed (Argo CD's `CanSync(isManual, operationStartTime)`, re-checked on
 * every reconcile). Blocked now, it may still overrun when every window blocking it has `syncOverrun` — every active
 * deny window, or with no deny active every (inactive) allow window — and the whole decision, taken again at the
 * operation's start time, allowed it then.
 */
export function canContinueOperation(
  windows: readonly SyncWindow[] | undefined,
  app: WindowTarget,
  now: Date,
  operation: { manual: boolean; startedAt: Date },
): boolean {
  const decision = syncDecision(windows, app, now, operation);
  if (decision.allowed) return true;
  const blockers =
    decision.reason === 'active-deny'
      ? decision.active.filter((a) => a.window.kind === 'deny').map((a) => a.window)
      : decision.matching.filter((w) => w.kind === 'allow');
  if (!blockers.every((w) => w.syncOverrun === true)) return false;
  return decideAt(decision.matching, operation.startedAt, now, operation.manual).allowed;
}
