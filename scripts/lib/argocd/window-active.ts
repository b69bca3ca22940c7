// SyncWindow.active: active when a cron start s satisfies now - duration < s < now (clock shifted by the zone offset).
import { nextStart } from './cron-schedule.ts';
import { parseGoDuration } from './go-duration.ts';
import type { SyncWindow } from './sync-window-schema.ts';
import { zoneOffsetMs } from './time-zone.ts';

type WindowTiming = Pick<SyncWindow, 'schedule' | 'duration' | 'timeZone'>;

/**
 * The start of the window's current occurrence (a real instant), or undefined when it is not active at `now`.
 * Argo CD: next = schedule.Next(now + offset - duration) evaluated in UTC; active when next is before now + offset.
 */
export function activeSince(window: WindowTiming, now: Date): Date | undefined {
  const duration = parseGoDuration(window.duration);
  if (duration === undefined) return undefined;
  // Argo CD uses the zone's offset at the current instant for the whole computation.
  const offset = zoneOffsetMs(window.timeZone, now);
  const shiftedNow = now.getTime() + offset;
  const next = nextStart(window.schedule, new Date(shiftedNow - duration)).getTime();
  return next < shiftedNow ? new Date(next - offset) : undefined;
}

export function windowActive(window: WindowTiming, now: Date): boolean {
  return activeSince(window, now) !== undefined;
}
