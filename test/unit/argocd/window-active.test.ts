import { describe, expect, it } from 'vitest';
import { activeSince, windowActive } from '../../../scripts/lib/argocd/index.ts';

// Tuesday 2026-03-10 12:30:00 UTC. Berlin is UTC+1 (CET), New York UTC-4 (EDT since 2026-03-08).
const NOW = new Date('2026-03-10T12:30:00Z');

// Each row: Argo CD's rule next = Next(now + offset - duration), active iff next < now + offset, worked by hand.
const cases: { name: string; schedule: string; duration: string; timeZone?: string; now?: string; active: boolean }[] =
  [
    { name: 'started 30 min ago, lasts 1h', schedule: '0 12 * * *', duration: '1h', active: true },
    { name: 'ends exactly now (open interval)', schedule: '0 12 * * *', duration: '30m', active: false },
    { name: 'ends one minute from now', schedule: '0 12 * * *', duration: '31m', active: true },
    { name: 'starts exactly now: not yet active', schedule: '30 12 * * *', duration: '1h', active: false },
    {
      name: 'starts one second later than now',
      schedule: '30 12 * * *',
      duration: '1h',
      now: '2026-03-10T12:30:01Z',
      active: true,
    },
    { name: 'one-minute window that just ended', schedule: '29 12 * * *', duration: '1m', active: false },
    { name: 'two-minute window still open', schedule: '29 12 * * *', duration: '2m', active: true },
    { name: 'window spanning midnight from yesterday', schedule: '0 22 * * *', duration: '15h', active: true },
    { name: 'window spanning midnight ended', schedule: '0 22 * * *', duration: '14h', active: false },
    { name: 'day of week: Monday only, today Tuesday', schedule: '0 12 * * 1', duration: '1h', active: false },
    { name: 'day of week: Tuesday', schedule: '0 12 * * 2', duration: '1h', active: true },
    { name: 'day of week by name', schedule: '0 12 * * TUE', duration: '1h', active: true },
    { name: 'day of month and month', schedule: '0 12 10 3 *', duration: '1h', active: true },
    { name: 'another day of month', schedule: '0 12 11 3 *', duration: '1h', active: false },
    { name: 'day of month OR day of week when both restricted', schedule: '0 12 1 * 2', duration: '1h', active: true },
    { name: 'Go duration 1h30m ending now', schedule: '0 11 * * *', duration: '1h30m', active: false },
    { name: 'Go duration 1h31m', schedule: '0 11 * * *', duration: '1h31m', active: true },
    { name: 'fractional Go duration 1.6h', schedule: '0 11 * * *', duration: '1.6h', active: true },
    {
      name: 'time zone Europe/Berlin: 13:00 CET is 12:00 UTC',
      schedule: '0 13 * * *',
      duration: '1h',
      timeZone: 'Europe/Berlin',
      active: true,
    },
    {
      name: 'same schedule in UTC is not active',
      schedule: '0 13 * * *',
      duration: '1h',
      timeZone: 'UTC',
      active: false,
    },
    {
      name: 'time zone America/New_York (EDT): 08:00 is 12:00 UTC',
      schedule: '0 8 * * *',
      duration: '1h',
      timeZone: 'America/New_York',
      active: true,
    },
    {
      name: 'America/New_York 08:30 starts exactly now',
      schedule: '30 8 * * *',
      duration: '1h',
      timeZone: 'America/New_York',
      active: false,
    },
    {
      name: 'invalid time zone falls back to UTC',
      schedule: '0 12 * * *',
      duration: '1h',
      timeZone: 'Mars/Olympus',
      active: true,
    },
    {
      name: 'lease window: acquisition minute, 720m, seconds later',
      schedule: '34 12 10 3 *',
      duration: '720m',
      now: '2026-03-10T12:34:20Z',
      active: true,
    },
    {
      name: 'lease window: a minute before expiry',
      schedule: '34 12 10 3 *',
      duration: '720m',
      now: '2026-03-11T00:33:00Z',
      active: true,
    },
    {
      name: 'lease window: at expiry',
      schedule: '34 12 10 3 *',
      duration: '720m',
      now: '2026-03-11T00:34:00Z',
      active: false,
    },
    { name: 'negative duration is never active', schedule: '0 12 * * *', duration: '-1h', active: false },
    { name: 'every minute, 90s', schedule: '* * * * *', duration: '90s', active: true },
  ];

describe('windowActive() follows SyncWindow.active', () => {
  for (const c of cases) {
    it(`${c.active ? 'active' : 'inactive'}: ${c.name} (${c.schedule}, ${c.duration}${c.timeZone ? `, ${c.timeZone}` : ''})`, () => {
      expect(
        windowActive({ schedule: c.schedule, duration: c.duration, timeZone: c.timeZone }, new Date(c.now ?? NOW)),
      ).toBe(c.active);
    });
  }

  it('activeSince() returns the real instant the current occurrence started, also in a shifted zone', () => {
    expect(activeSince({ schedule: '0 12 * * *', duration: '1h' }, NOW)?.toISOString()).toBe(
      '2026-03-10T12:00:00.000Z',
    );
    expect(activeSince({ schedule: '0 13 * * *', duration: '1h', timeZone: 'Europe/Berlin' }, NOW)?.toISOString()).toBe(
      '2026-03-10T12:00:00.000Z',
    );
    expect(activeSince({ schedule: '0 22 * * *', duration: '15h' }, NOW)?.toISOString()).toBe(
      '2026-03-09T22:00:00.000Z',
    );
    expect(activeSince({ schedule: '0 12 * * 1', duration: '1h' }, NOW)).toBeUndefined();
  });
});
