// Cleanup removes only what a lease wrote: a user's sync windows are never touched, and every window a lease could have
// written is removed once no record names it. Each test protects one decision a mutant changed.
import { describe, expect, it } from 'vitest';
import {
  decideCleanup,
  isLeaseShaped,
  isOurWindow,
  leaseWindow,
  newLease,
  windowMinutes,
  windowSchedule,
} from '../../../scripts/lib/ownership/index.ts';

const ME = { checkout: '/home/ana/platform', workstation: 'ana-laptop' };
const COMMIT = 'c'.repeat(40);
const TTL = 12 * 3_600_000;
const NOW = new Date('2026-10-14T12:00:00Z');
const held = { ...newLease(ME, ['pharos'], COMMIT, new Date('2026-10-14T11:00:00Z'), TTL), state: 'held' as const };
const ours = leaseWindow(held);
/** A window an earlier lease wrote at 09:37 on other Applications, whose record is gone. */
const orphan = leaseWindow({
  applications: ['web'],
  acquired: '2026-10-14T09:37:00Z',
  expires: '2026-10-14T21:37:00Z',
});

describe('isLeaseShaped(): only a window a lease would write is ever removed as an orphan', () => {
  it('accepts a lease window acquired at any minute, hour, day and month', () => {
    for (const acquired of [
      '2026-10-14T09:37:00Z',
      '2026-01-01T00:00:00Z',
      '2026-12-31T23:59:59Z',
      '2026-03-05T10:10:00Z',
    ]) {
      const w = leaseWindow({ applications: ['web'], acquired, expires: '2027-01-01T00:00:00Z' });
      expect(isLeaseShaped(w), w.schedule).toBe(true);
    }
  });

  it("never a user's allow window", () => {
    expect(isLeaseShaped({ ...orphan, kind: 'allow' })).toBe(false);
  });

  it('never a window that lets manual syncs through', () => {
    expect(isLeaseShaped({ ...orphan, manualSync: true })).toBe(false);
    expect(isLeaseShaped({ ...orphan, manualSync: 'false' })).toBe(false);
  });

  it('never a window in another time zone', () => {
    expect(isLeaseShaped({ ...orphan, timeZone: 'Europe/Paris' })).toBe(false);
  });

  it('never a duration a lease does not write (hours, mixed units, zero, leading zero, or not a string)', () => {
    for (const duration of ['1h5m', '1h', '0m', '05m', 'm', '5m ', ' 5m', '5', 721]) {
      expect(isLeaseShaped({ ...orphan, duration }), String(duration)).toBe(false);
    }
    expect(isLeaseShaped({ ...orphan, duration: '10m' })).toBe(true);
    // A regular expression would read ['5m'] as "5m".
    expect(isLeaseShaped({ ...orphan, duration: ['5m'] })).toBe(false);
  });

  it('never a schedule that is not one yearly minute', () => {
    for (const schedule of [
      '37 9 14 10 1',
      '* 9 14 10 *',
      '37 9 14 10',
      '137 9 14 10 *',
      '37 9 14 10 * ',
      'x37 9 14 10 *',
      '37  9 14 10 *',
      5,
    ]) {
      expect(isLeaseShaped({ ...orphan, schedule }), String(schedule)).toBe(false);
    }
    expect(isLeaseShaped({ ...orphan, schedule: [orphan.schedule] })).toBe(false);
  });

  it('never a window without Applications or with another field', () => {
    expect(isLeaseShaped({ ...orphan, applications: [] })).toBe(false);
    expect(isLeaseShaped({ ...orphan, applications: 'web' })).toBe(false);
    expect(isLeaseShaped({ ...orphan, namespaces: ['x'] })).toBe(false);
    const { timeZone: _zone, ...withoutZone } = orphan;
    expect(isLeaseShaped(withoutZone)).toBe(false);
  });

  it('is false, never a crash, for entries that are not objects', () => {
    for (const entry of [null, undefined, 'deny', 7, true]) expect(isLeaseShaped(entry)).toBe(false);
    for (const entry of [null, undefined, 'deny', 7]) expect(isOurWindow(entry, held)).toBe(false);
  });
});

describe('leaseWindow(), windowSchedule(), windowMinutes()', () => {
  it('a lease acquired at minute 0, hour 0 of 1 January starts "0 0 1 1 *"', () => {
    expect(windowSchedule(new Date('2026-01-01T00:00:00Z'))).toBe('0 0 1 1 *');
  });

  it('a window lasts at least one minute, even when the record expires in the acquire minute', () => {
    expect(windowMinutes(new Date('2026-01-01T00:00:10Z'), new Date('2026-01-01T00:00:20Z'))).toBe(1);
    expect(windowMinutes(new Date('2026-01-01T00:00:10Z'), new Date('2026-01-01T00:00:00Z'))).toBe(1);
    expect(windowMinutes(new Date('2026-01-01T00:00:10Z'), new Date('2026-01-01T00:01:00Z'))).toBe(1);
    expect(windowMinutes(new Date('2026-01-01T00:00:10Z'), new Date('2026-01-01T00:01:00.001Z'))).toBe(2);
  });

  it("sorts the window's Applications without reordering the record's", () => {
    const record = {
      applications: ['web', 'pharos'],
      acquired: '2026-10-14T09:37:00Z',
      expires: '2026-10-14T09:47:00Z',
    };
    expect(leaseWindow(record)).toEqual({
      kind: 'deny',
      schedule: '37 9 14 10 *',
      duration: '10m',
      applications: ['pharos', 'web'],
      manualSync: false,
      timeZone: 'UTC',
    });
    expect(record.applications).toEqual(['web', 'pharos']);
  });
});

describe('decideCleanup()', () => {
  const userWindows = [
    { kind: 'allow', schedule: '0 8 * * *', duration: '10h', applications: ['*'] },
    { ...orphan, kind: 'allow' },
    { ...orphan, manualSync: true },
    { ...orphan, timeZone: 'Europe/Paris' },
    { ...orphan, duration: '1h5m' },
  ];

  it("never removes a user's window, whatever the lease", () => {
    expect(decideCleanup(undefined, userWindows, NOW)).toEqual([]);
    expect(decideCleanup(held, [...userWindows, ours], NOW)).toEqual([]);
    expect(decideCleanup(held, [...userWindows, ours], new Date('2026-10-15T00:00:00Z'))).toEqual([
      { kind: 'remove-expired', record: held },
    ]);
  });

  it('removes an orphan window acquired at minute 37 (not only minutes 0-9)', () => {
    expect(decideCleanup(undefined, [orphan], NOW)).toEqual([{ kind: 'remove-orphan-window', window: orphan }]);
  });

  it('with an expired lease, removes the lease and the other orphan windows too', () => {
    expect(decideCleanup(held, [ours, orphan], new Date('2026-10-15T00:00:00Z'))).toEqual([
      { kind: 'remove-expired', record: held },
      { kind: 'remove-orphan-window', window: orphan },
    ]);
  });

  it('with a live lease, removes the other orphan windows and keeps its own', () => {
    expect(decideCleanup(held, [orphan, ours], NOW)).toEqual([{ kind: 'remove-orphan-window', window: orphan }]);
  });

  it('a lease expiring exactly now is expired', () => {
    expect(decideCleanup(held, [ours], new Date(held.expires))).toEqual([{ kind: 'remove-expired', record: held }]);
  });

  it('reads past a null or malformed entry in syncWindows instead of throwing', () => {
    expect(decideCleanup(held, [null, 'x', ours, orphan], NOW)).toEqual([
      { kind: 'remove-orphan-window', window: orphan },
    ]);
    expect(decideCleanup(undefined, [null, orphan], NOW)).toEqual([{ kind: 'remove-orphan-window', window: orphan }]);
    expect(decideCleanup(held, [null, ours], new Date('2026-10-15T00:00:00Z'))).toEqual([
      { kind: 'remove-expired', record: held },
    ]);
  });

  it('writes the window again for an acquiring record as for a held one', () => {
    const acquiring = { ...held, state: 'acquiring' as const };
    expect(decideCleanup(acquiring, [orphan], NOW)).toEqual([
      { kind: 'remove-orphan-window', window: orphan },
      { kind: 'complete-window', record: acquiring },
    ]);
  });

  it('a record handing back whose window is still there waits for the hand-back to finish', () => {
    const leaving = { ...held, state: 'handing-back' as const };
    expect(decideCleanup(leaving, [ours], NOW)).toEqual([]);
  });
});
