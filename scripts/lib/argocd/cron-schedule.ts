// Argo CD parses schedules with robfig/cron (scripts/lib/argocd/robfig-cron.ts): 5 fields, no descriptors, no seconds.
import { CronParseError, cronNext, parseCron } from './robfig-cron.ts';
import type { CronSchedule } from './robfig-cron.ts';
import { isKnownTimeZone, zoneOffsetMs } from './time-zone.ts';

const cache = new Map<string, CronSchedule | string>();

function parsed(schedule: string): CronSchedule | string {
  let found = cache.get(schedule);
  if (found === undefined) {
    try {
      found = parseCron(schedule, isKnownTimeZone);
    } catch (error) {
      if (!(error instanceof CronParseError)) throw error;
      found = error.message;
    }
    cache.set(schedule, found);
  }
  return found;
}

/** Why robfig/cron would reject the schedule, or undefined when it parses. */
export function scheduleProblem(schedule: string): string | undefined {
  const p = parsed(schedule);
  return typeof p === 'string' ? p : undefined;
}

/**
 * The first schedule start strictly after `after` (a clock already shifted by the window's zone, read as UTC), or
 * undefined when robfig finds none within five years. A `CRON_TZ=` prefix runs the schedule on that zone's wall clock.
 */
export function nextStart(schedule: string, after: Date): Date | undefined {
  const p = parsed(schedule);
  if (typeof p === 'string') throw new CronParseError(p);
  if (p.zone === undefined || p.zone === 'UTC') return cronNext(p, after);
  const offset = zoneOffsetMs(p.zone, after);
  const next = cronNext(p, new Date(after.getTime() + offset));
  return next === undefined
    ? undefined
    : new Date(next.getTime() - zoneOffsetMs(p.zone, new Date(next.getTime() - offset)));
}
