import type { Clock } from '../ports/clock.ts';
import { systemClock } from '../ports/clock.ts';
import { UsageError } from '../errors/toolkit-error.ts';

/** The system clock, unless HEPHAESTUS_NOW (RFC 3339) pins it: for drills and tests of expiry, never set on a real host. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const pinned = env.HEPHAESTUS_NOW;
  if (pinned === undefined || pinned === '') return systemClock;
  const time = Date.parse(pinned);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(pinned) || Number.isNaN(time))
    throw new UsageError(`Cannot read HEPHAESTUS_NOW "${pinned}": expected an RFC 3339 time`);
  return { now: () => new Date(time) };
}
