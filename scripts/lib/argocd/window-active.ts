// SyncWindow.active: active when a cron start s satisfies now - duration < s < now (clock shifted by the zone offset).
import { nextStart } from './cron-schedule.ts';
import { parseGoDuration } from './go-duration.ts';
import type { SyncWindow } from './sync-window-schema.ts';
import { zoneOffsetMs } from './time-zone.ts';

type WindowTiming = Pick<SyncWindow, 'schedule' | 'duration' | 'timeZone'>;

/** Go's zero time, what robfig's Next returns when the schedule never fires: it is before every instant. */
export const GO_ZERO_TIME = new Date('0001-01-01T00:00:00Z');

/**
 * The start of the window's current occurrence (a real instant), or undefined when it is not active at `at`.
 * Argo CD: next = schedule.Next(at + offset - duration) evaluated in UTC; active when next is before at + offset.
 * The zone offset is the one at `offsetAt` (Argo CD takes it at the real now, also when it re-checks an operation's
 * start time); a schedule with no next start makes the window always active (since Go's zero time).
 */
export function activeSince(window: WindowTiming, at: Date, offsetAt: Date = at): Date | undefined {
  const duration = parseGoDuration(window.duration);
  if (duration === undefined) return undefined;
  const offset = zoneOffsetMs(window.timeZone, offsetAt);
  const shiftedNow = at.getTime() + offset;
  const next = nextStart(window.schedule, new Date(shiftedNow - duration));
  if (next === undefined) return GO_ZERO_TIME;
  return next.getTime() < shiftedNow ? new Date(next.getTime() - offset) : undefined;
}

export function windowActive(window: WindowTiming, now: Date): boolean {
  return activeSince(window, now) !== undefined;
}
