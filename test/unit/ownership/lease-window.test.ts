import { describe, expect, it } from 'vitest';
import { activeSince, canSync, syncWindowSchema } from '../../../scripts/lib/argocd/index.ts';
import {
  isLeaseShaped,
  isOurWindow,
  leaseWindow,
  windowMinutes,
  windowSchedule,
} from '../../../scripts/lib/ownership/index.ts';

const record = {
  applications: ['themelio-compat', 'pharos'],
  acquired: '2026-10-14T12:07:30Z',
  expires: '2026-10-15T00:07:30Z',
};

describe('lease window', () => {
  it('leaseWindow() is a deny window at the UTC acquire minute, manualSync false, applications sorted', () => {
    const w = leaseWindow(record);
    expect(w).toEqual({
      kind: 'deny',
      schedule: '7 12 14 10 *',
      duration: '721m',
      applications: ['pharos', 'themelio-compat'],
      manualSync: false,
      timeZone: 'UTC',
    });
    expect(syncWindowSchema.safeParse(w).success).toBe(true);
  });

  it('windowMinutes() rounds up so the window never ends before the record expires', () => {
    expect(windowMinutes(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T12:00:00Z'))).toBe(720);
    expect(windowMinutes(new Date('2026-01-01T00:00:59Z'), new Date('2026-01-01T12:00:59Z'))).toBe(721);
    expect(windowSchedule(new Date('2026-12-31T23:59:59Z'))).toBe('59 23 31 12 *');
  });

  it('the window is active (by Argo CD rules) from the acquire until expires, and not after', () => {
    const w = leaseWindow(record);
    const app = { name: 'pharos', destination: {} };
    expect(activeSince(w, new Date('2026-10-14T12:07:31Z'))?.toISOString()).toBe('2026-10-14T12:07:00.000Z');
    expect(canSync([w], app, new Date('2026-10-15T00:07:29Z'), { manual: true })).toBe(false);
    expect(canSync([w], app, new Date('2026-10-15T00:08:01Z'), { manual: false })).toBe(true);
    expect(canSync([w], { name: 'other', destination: {} }, new Date('2026-10-14T13:00:00Z'), { manual: false })).toBe(
      true,
    );
  });

  it('isOurWindow() needs deny, manualSync false and exactly the record applications', () => {
    const w = leaseWindow(record);
    expect(isOurWindow({ ...w, applications: ['themelio-compat', 'pharos'] }, record)).toBe(true);
    expect(isOurWindow({ ...w, manualSync: true }, record)).toBe(false);
    expect(isOurWindow({ ...w, kind: 'allow' }, record)).toBe(false);
    expect(isOurWindow({ ...w, applications: ['pharos'] }, record)).toBe(false);
    expect(isOurWindow({ ...w, applications: ['pharos', 'themelio'] }, record)).toBe(false);
  });

  it('isLeaseShaped() accepts only the six lease fields with a one-minute yearly schedule', () => {
    const w = leaseWindow(record);
    expect(isLeaseShaped(w)).toBe(true);
    expect(isLeaseShaped({ ...w, description: 'nightly freeze' })).toBe(false);
    expect(isLeaseShaped({ ...w, schedule: '0 22 * * *' })).toBe(false);
    expect(isLeaseShaped({ ...w, duration: '1h' })).toBe(false);
    expect(isLeaseShaped({ ...w, applications: [] })).toBe(false);
  });
});
