import { describe, expect, it } from 'vitest';
import { canContinueOperation, canSync, syncWindowSchema, windowActive } from '../../../scripts/lib/argocd/index.ts';
import type { SyncWindow, WindowTarget } from '../../../scripts/lib/argocd/index.ts';
import { globMatch } from '../../../scripts/lib/argocd/glob-match.ts';
import { parseGoDuration } from '../../../scripts/lib/argocd/go-duration.ts';
import { nextStart, scheduleProblem } from '../../../scripts/lib/argocd/cron-schedule.ts';

// Tables ported from the projects' own tests (facts, not code):
// - Argo CD argoproj/argo-cd@37ee0097cf851bc2dd7665fc081bbce61a7e836e, pkg/apis/application/v1alpha1/types_test.go:
//   TestSyncWindows_SyncOverrun, TestSyncWindow_Active, TestSyncWindow_Validate; types.go SyncWindow.Validate.
// - robfig/cron robfig/cron@bc59245fe10efaed9d51b56900192527ed733435, spec_test.go TestActivation and TestNext
//   (the 6-field cases with seconds 0, as 5 fields), parser.go getRange and spec.go dayMatches.
// - gobwas/glob gobwas/glob@e7a84e9525fe90abcda167b604e483cc959ad4aa, syntax/lexer/lexer.go fetchRange.
// Argo CD's tests take `now` from the clock (some seconds into the minute); here it is fixed at 12:30:30 UTC and the
// schedules are written out.

const NOW = new Date('2026-03-10T12:30:30Z');
const app: WindowTarget = {
  name: 'test-app',
  destination: { namespace: 'default', server: 'cluster1', name: 'clusterName' },
};
const win = (
  kind: 'allow' | 'deny',
  schedule: string,
  duration: string,
  extra: Partial<SyncWindow> = {},
): SyncWindow => ({ kind, schedule, duration, applications: ['*'], ...extra });
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
const ALWAYS_ALLOW = win('allow', '* * * * *', '1h'); // newTestProjectWithSyncWindows()

describe('Argo CD TestSyncWindows_SyncOverrun: an operation in progress under windows that changed since it started', () => {
  const cases: { name: string; windows: SyncWindow[]; started: number; expected: boolean }[] = [
    {
      name: 'DenyWindowWithoutOverrunBlocksContinuingSync',
      windows: [ALWAYS_ALLOW, win('deny', '* * * * *', '1h')],
      started: 5,
      expected: false,
    },
    {
      name: 'DenyWindowWithOverrunBlocksSyncThatStartedDuringDeny',
      windows: [ALWAYS_ALLOW, win('deny', '* * * * *', '1h', { syncOverrun: true })],
      started: 5,
      expected: false,
    },
    {
      name: 'AllowsSyncToContinueWhenStartedBeforeDenyWindowWithOverrun',
      windows: [ALWAYS_ALLOW, win('deny', '30 12 * * *', '15m', { syncOverrun: true })],
      started: 25,
      expected: true,
    },
    {
      name: 'DeniesSyncThatStartedWhenInactiveAllowsBlockedIt',
      windows: [win('allow', '30 9 * * *', '30m'), win('deny', '30 12 * * *', '1h', { syncOverrun: true })],
      started: 60,
      expected: false,
    },
    {
      name: 'AllowsSyncWhenStartedDuringAllowWindowWithOverrun',
      windows: [win('allow', '30 11 * * *', '30m', { syncOverrun: true })],
      started: 45,
      expected: true,
    },
    {
      name: 'DeniesSyncWhenStartedDuringAllowWindowWithoutOverrun',
      windows: [win('allow', '30 11 * * *', '30m')],
      started: 45,
      expected: false,
    },
    {
      name: 'DeniesSyncStartedInAllowWithOverrunWhenTransitionsToDenyWithoutOverrun',
      windows: [win('allow', '30 11 * * *', '30m', { syncOverrun: true }), win('deny', '30 12 * * *', '1h')],
      started: 45,
      expected: false,
    },
    {
      name: 'AllowsSyncStartedInAllowWithoutOverrunWhenTransitionsToDenyWithOverrun',
      windows: [win('allow', '30 11 * * *', '30m'), win('deny', '30 12 * * *', '1h', { syncOverrun: true })],
      started: 45,
      expected: true,
    },
    {
      name: 'AllowsSyncStartedInAllowWithOverrunWhenTransitionsToDenyWithOverrun',
      windows: [
        win('allow', '30 11 * * *', '30m', { syncOverrun: true }),
        win('deny', '30 12 * * *', '1h', { syncOverrun: true }),
      ],
      started: 45,
      expected: true,
    },
    {
      name: 'DeniesSyncStartedInAllowWithoutOverrunWhenTransitionsToDenyWithoutOverrun',
      windows: [win('allow', '30 11 * * *', '30m'), win('deny', '30 12 * * *', '1h')],
      started: 45,
      expected: false,
    },
    {
      name: 'AllowsSyncStartedInAllowWhenMultipleConcurrentDenyWindowsAllHaveOverrun',
      windows: [
        win('allow', '30 11 * * *', '30m', { syncOverrun: true }),
        win('deny', '30 12 * * *', '1h', { syncOverrun: true }),
        win('deny', '30 12 * * *', '2h', { syncOverrun: true }),
      ],
      started: 45,
      expected: true,
    },
    {
      name: 'DeniesSyncStartedInAllowWhenOneConcurrentDenyWindowLacksOverrun',
      windows: [
        win('allow', '30 11 * * *', '30m', { syncOverrun: true }),
        win('deny', '30 12 * * *', '1h', { syncOverrun: true }),
        win('deny', '30 12 * * *', '2h'),
      ],
      started: 45,
      expected: false,
    },
    {
      name: 'DeniesSyncWhenLeavingMultipleAllowWindowsWhereOneLacksOverrun',
      windows: [win('allow', '30 11 * * *', '30m', { syncOverrun: true }), win('allow', '30 11 * * *', '30m')],
      started: 45,
      expected: false,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.expected ? 'continues' : 'is blocked'}`, () => {
      expect(canContinueOperation(c.windows, app, NOW, { manual: false, startedAt: ago(c.started) })).toBe(c.expected);
    });
  }

  it('DenyWindowWithOverrunBlocksNewSync: syncOverrun never lets a new sync start', () => {
    expect(
      canSync([ALWAYS_ALLOW, win('deny', '* * * * *', '1h', { syncOverrun: true })], app, NOW, { manual: false }),
    ).toBe(false);
  });

  it('an earlier occurrence of the same deny window still active at the start time blocks the overrun', () => {
    // Every 30 min for 45 min: the 12:00 occurrence was active when the operation started at 12:10.
    expect(
      canContinueOperation([win('deny', '0,30 * * * *', '45m', { syncOverrun: true })], app, NOW, {
        manual: false,
        startedAt: ago(20),
      }),
    ).toBe(false);
  });
});

describe('Argo CD TestSyncWindow_Active and TestSyncWindow_Validate', () => {
  const at = (hour: number) => new Date(Date.UTC(2026, 2, 10, hour, 0, 0));
  it('"* 10 * * *" for 2h is active at 11:00 UTC (also when the clock is read in UTC-4) and not at 13:00', () => {
    expect(windowActive({ schedule: '* 10 * * *', duration: '2h' }, at(11))).toBe(true);
    expect(windowActive({ schedule: '* 10 * * *', duration: '2h' }, at(13))).toBe(false);
  });

  const valid = (w: Record<string, unknown>) =>
    syncWindowSchema.safeParse({ kind: 'allow', schedule: '* * * * *', duration: '1h', ...w }).success;
  it('refuses kind "wrong", schedule "* * *", "* 10 * * 7", duration "1000days" and "2a"', () => {
    expect(valid({})).toBe(true);
    expect(valid({ kind: 'wrong' })).toBe(false);
    expect(valid({ schedule: '* * *' })).toBe(false);
    expect(valid({ schedule: '* 10 * * 7' })).toBe(false);
    expect(valid({ duration: '1000days' })).toBe(false);
    expect(valid({ duration: '2a' })).toBe(false);
  });

  it('counts the description in bytes, as Go len() does: 255 ASCII pass, 128 two-byte characters do not', () => {
    expect(valid({ description: 'x'.repeat(255) })).toBe(true);
    expect(valid({ description: 'x'.repeat(256) })).toBe(false);
    expect(valid({ description: 'é'.repeat(128) })).toBe(false);
  });

  it("refuses a duration that overflows Go's int64 nanoseconds, accepts the largest one", () => {
    expect(parseGoDuration('2562047h')).toBe(2562047 * 3_600_000);
    expect(parseGoDuration('2562048h')).toBeUndefined();
    expect(parseGoDuration('9223372036854775807ns')).toBeCloseTo(9223372036854.775807, 0);
    expect(parseGoDuration('9223372036854775808ns')).toBeUndefined();
    expect(parseGoDuration('-9223372036854775808ns')).toBeCloseTo(-9223372036854.775808, 0);
    expect(valid({ duration: '100000000h' })).toBe(false);
  });
});

describe('robfig/cron as Argo CD parses schedules', () => {
  const next = (from: string, schedule: string) => nextStart(schedule, new Date(from))?.toISOString();
  const cases: [string, string, string][] = [
    ['2012-07-09T14:45:00Z', '0/15 * * * *', '2012-07-09T15:00:00.000Z'],
    ['2012-07-09T14:59:59Z', '0/15 * * * *', '2012-07-09T15:00:00.000Z'],
    ['2012-07-09T15:45:00Z', '20-35/15 * * * *', '2012-07-09T16:20:00.000Z'],
    ['2012-07-09T23:46:00Z', '*/15 * * * *', '2012-07-10T00:00:00.000Z'],
    ['2012-07-09T23:45:00Z', '20-35/15 * * * *', '2012-07-10T00:20:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 9 Apr-Oct ?', '2012-08-09T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 */5 Apr,Aug,Oct Mon', '2012-08-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 */5 Oct Mon', '2012-10-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 * Feb Mon', '2013-02-04T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 * Feb Mon/2', '2013-02-01T00:00:00.000Z'],
    ['2012-12-31T23:59:45Z', '* * * * *', '2013-01-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 29 Feb ?', '2016-02-29T00:00:00.000Z'],
  ];
  for (const [from, schedule, expected] of cases) {
    it(`TestNext: after ${from} "${schedule}" fires at ${expected}`, () => expect(next(from, schedule)).toBe(expected));
  }

  const fires = (at: string, schedule: string) =>
    next(new Date(new Date(at).getTime() - 1000).toISOString(), schedule) === new Date(at).toISOString();
  const activations: [string, string, boolean][] = [
    ['2012-07-15T08:30:00Z', '30 08 ? Jul Sun', true],
    ['2012-07-16T08:30:00Z', '30 08 ? Jul Sun', false],
    ['2012-06-15T00:00:00Z', '* * 1,15 * Sun', true],
    ['2012-08-01T00:00:00Z', '* * 1,15 * Sun', true],
    ['2012-07-15T00:00:00Z', '* * */10 * Sun', true],
    ['2012-07-15T00:00:00Z', '* * * * Mon', false],
    ['2012-07-09T00:00:00Z', '* * 1,15 * *', false],
  ];
  for (const [at, schedule, expected] of activations) {
    it(`TestActivation: "${schedule}" ${expected ? 'fires' : 'does not fire'} at ${at}`, () =>
      expect(fires(at, schedule)).toBe(expected));
  }

  it('"*/1" and "*,5" in day of month keep the star bit: day of month and day of week are AND-ed (Sundays only)', () => {
    expect(fires('2012-07-09T00:00:00Z', '0 0 */1 * Sun')).toBe(false);
    expect(fires('2012-07-15T00:00:00Z', '0 0 */1 * Sun')).toBe(true);
    expect(fires('2012-07-05T00:00:00Z', '0 0 *,5 * Sun')).toBe(false);
    expect(fires('2012-07-05T00:00:00Z', '0 0 */2 * Sun')).toBe(true);
  });

  it('accepts "+5" (strconv.Atoi), "*,5", "?" and a CRON_TZ= prefix; refuses descriptors and day of week 7', () => {
    for (const ok of [
      '+5 * * * *',
      '*,5 * * * *',
      '0 0 ? * *',
      'CRON_TZ= 0 12 * * *',
      'CRON_TZ=Europe/Berlin 0 12 * * *',
      'TZ=UTC 0 12 * * *',
      '0 0 30 2 *',
    ])
      expect(scheduleProblem(ok), ok).toBeUndefined();
    for (const bad of [
      '@daily',
      '0 0 * * 7',
      '0 0 * * * *',
      'CRON_TZ=Mars/Base 0 12 * * *',
      '5-3 * * * *',
      '*/0 * * * *',
    ])
      expect(scheduleProblem(bad), bad).toBeDefined();
    expect(next('2026-03-10T12:00:00Z', '+5 * * * *')).toBe('2026-03-10T12:05:00.000Z');
  });

  it("CRON_TZ= runs the schedule on that zone's wall clock: 12:00 in Berlin (CET) is 11:00 UTC", () => {
    expect(next('2026-03-10T00:00:00Z', 'CRON_TZ=Europe/Berlin 0 12 * * *')).toBe('2026-03-10T11:00:00.000Z');
  });

  it('a schedule that never fires ("0 0 30 2 *") has no next start, and Argo CD treats its window as always active', () => {
    expect(next('2026-03-10T00:00:00Z', '0 0 30 2 *')).toBeUndefined();
    expect(windowActive({ schedule: '0 0 30 2 *', duration: '1m' }, NOW)).toBe(true);
    expect(canSync([win('deny', '0 0 30 2 *', '1m')], app, NOW, { manual: false })).toBe(false);
  });
});

describe('time zones as Go time.LoadLocation reads them (an unknown one falls back to UTC)', () => {
  // 13:00-14:00 in Berlin (CET, UTC+1) is 12:00-13:00 UTC: active at 12:30 UTC only when the zone is loaded.
  const berlin = (timeZone: string) => windowActive({ schedule: '0 13 * * *', duration: '1h', timeZone }, NOW);
  it('"Europe/Berlin" is loaded; "europe/berlin" and "+01:00" are not (case-sensitive file names; offsets are no zones)', () => {
    expect(berlin('Europe/Berlin')).toBe(true);
    expect(berlin('europe/berlin')).toBe(false);
    expect(berlin('+01:00')).toBe(false);
    expect(windowActive({ schedule: '0 12 * * *', duration: '1h', timeZone: '+01:00' }, NOW)).toBe(true);
  });
});

describe('gobwas/glob brackets: one range or one list per bracket', () => {
  const cases: [string, string, boolean][] = [
    ['[a-c]-app', 'b-app', true],
    ['[!a-c]-app', 'b-app', false],
    ['[abc]-app', 'c-app', true],
    ['[a-cx]-app', 'x-app', false], // a range must be followed by "]": the pattern is invalid and matches nothing
    ['[a-cx]-app', 'b-app', false],
    ['[a-]-app', 'a-app', false],
    ['[-a]-app', '--app', true],
    ['[\\]]-app', ']-app', true],
    ['{test,prod}-*', 'prod-app', true],
  ];
  for (const [pattern, value, expected] of cases) {
    it(`"${pattern}" ${expected ? 'matches' : 'does not match'} "${value}"`, () =>
      expect(globMatch(pattern, value)).toBe(expected));
  }
});
