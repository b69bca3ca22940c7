import type { LeaseRecord } from './lease-record.ts';
import { isExpired } from './lease-record.ts';
import { isLeaseShaped, isOurWindow } from './lease-window.ts';

export type CleanupAction =
  /** An expired lease: its windows, then its record (and the workloads it replaced). */
  | { readonly kind: 'remove-expired'; readonly record: LeaseRecord }
  /** A lease-shaped window in the project with no record naming its applications. */
  | { readonly kind: 'remove-orphan-window'; readonly window: Readonly<Record<string, unknown>> }
  /** A record whose window is missing while acquiring or held: the window is written again. */
  | { readonly kind: 'complete-window'; readonly record: LeaseRecord }
  /** A record left handing back after its window was removed: the record goes too. */
  | { readonly kind: 'remove-record'; readonly record: LeaseRecord };

/**
 * Pure: what every command for a target does first. `windows` are the sync windows of the target's AppProject, read
 * before the record (a window is written after its record and removed before it, so this order never sees a live
 * lease's window as an orphan).
 */
export function decideCleanup(lease: LeaseRecord | undefined, windows: readonly unknown[], now: Date): CleanupAction[] {
  if (lease !== undefined && isExpired(lease, now)) {
    const orphans = windows.filter((w) => isLeaseShaped(w) && !isOurWindow(w, lease));
    return [
      { kind: 'remove-expired', record: lease },
      ...orphans.map((window) => ({
        kind: 'remove-orphan-window' as const,
        window: window as Record<string, unknown>,
      })),
    ];
  }
  const actions: CleanupAction[] = windows
    .filter((w) => isLeaseShaped(w) && (lease === undefined || !isOurWindow(w, lease)))
    .map((window) => ({ kind: 'remove-orphan-window' as const, window: window as Record<string, unknown> }));
  if (lease !== undefined && !windows.some((w) => isOurWindow(w, lease))) {
    actions.push(
      lease.state === 'handing-back'
        ? { kind: 'remove-record', record: lease }
        : { kind: 'complete-window', record: lease },
    );
  }
  return actions;
}
