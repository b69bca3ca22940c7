// Argo CD's sync-window decision at its edges: the reason it gives, an operation already running, selectors that
// do not match, durations that do not parse. Each test protects one decision a mutant changed.
import { describe, expect, it } from 'vitest';
import {
  activeSince,
  canContinueOperation,
  matchingWindows,
  syncDecision,
  windowActive,
  windowMatches,
} from '../../../scripts/lib/argocd/index.ts';
import type { SyncWindow, WindowTarget } from '../../../scripts/lib/argocd/index.ts';
import { GO_ZERO_TIME } from '../../../scripts/lib/argocd/window-active.ts';

const NOW = new Date('2026-03-10T12:30:00Z');
const app: WindowTarget = {
  name: 'pharos',
  destination: { server: 'https://kubernetes.default.svc', name: 'in-cluster', namespace: 'pharos' },
};
const ACTIVE = { schedule: '0 12 * * *', duration: '1h' };
const INACTIVE = { schedule: '0 18 * * *', duration: '1h' };
const w = (
  kind: 'allow' | 'deny',
  timing: { schedule: string; duration: string },
  extra: Partial<SyncWindow> = {},
): SyncWindow => ({ kind, ...timing, applications: ['pharos'], ...extra });

describe('syncDecision() says why, in Argo CD terms', () => {
  const reason = (windows: SyncWindow[], manual = false) => {
    const d = syncDecision(windows, app, NOW, { manual });
    return `${d.allowed} ${d.reason}`;
  };

  it('no matching window', () => {
    expect(reason([])).toBe('true no-windows');
    expect(reason([w('deny', ACTIVE, { applications: ['other'] })])).toBe('true no-windows');
  });

  it('an active deny, with and without manualSync', () => {
    expect(reason([w('deny', ACTIVE)])).toBe('false active-deny');
    expect(reason([w('deny', ACTIVE, { manualSync: true })], true)).toBe('true active-deny-manual');
    expect(reason([w('deny', ACTIVE, { manualSync: true })], false)).toBe('false active-deny');
  });

  it('an active allow', () => {
    expect(reason([w('allow', ACTIVE), w('deny', INACTIVE)])).toBe('true active-allow');
  });

  it('only inactive allows, with and without manualSync', () => {
    expect(reason([w('allow', INACTIVE)])).toBe('false inactive-allow');
    expect(reason([w('allow', INACTIVE, { manualSync: true })], true)).toBe('true inactive-allow-manual');
  });

  it('only inactive denies', () => {
    expect(reason([w('deny', INACTIVE)])).toBe('true no-active-window');
  });

  it('lists the matching windows, active or not', () => {
    const windows = [w('deny', INACTIVE), w('allow', ACTIVE), w('deny', ACTIVE, { applications: ['other'] })];
    expect(syncDecision(windows, app, NOW, { manual: false }).matching).toEqual(windows.slice(0, 2));
  });
});

describe('canContinueOperation()', () => {
  const started = (iso: string) => ({ manual: false, startedAt: new Date(iso) });

  it('an operation allowed now continues, whatever was true when it started', () => {
    // The allow window opened at 12:00; at 11:50 only that inactive allow matched, which blocked.
    expect(canContinueOperation([w('allow', ACTIVE)], app, NOW, started('2026-03-10T11:50:00Z'))).toBe(true);
  });

  it('after an allow window ends, only the allow windows need syncOverrun, not an inactive deny', () => {
    const allow = w('allow', { schedule: '0 11 * * *', duration: '1h' }, { syncOverrun: true });
    const laterDeny = w('deny', INACTIVE);
    expect(canContinueOperation([allow, laterDeny], app, NOW, started('2026-03-10T11:50:00Z'))).toBe(true);
  });

  it('an active deny blocks unless every active deny has syncOverrun', () => {
    const overrun = w('deny', ACTIVE, { syncOverrun: true });
    expect(canContinueOperation([overrun, w('deny', ACTIVE)], app, NOW, started('2026-03-10T11:59:00Z'))).toBe(false);
    expect(canContinueOperation([overrun, w('allow', INACTIVE)], app, NOW, started('2026-03-10T11:59:00Z'))).toBe(
      false,
    );
  });
});

describe('windowMatches() selectors', () => {
  const at = (destination: WindowTarget['destination']): WindowTarget => ({ name: 'pharos', destination });

  it('any one of several cluster patterns is enough', () => {
    expect(windowMatches({ clusters: ['other', 'in-cluster'] }, app)).toBe(true);
    expect(windowMatches({ clusters: ['other'] }, app)).toBe(false);
  });

  it('a cluster pattern needs the destination name or server it names', () => {
    expect(windowMatches({ clusters: ['https://*'] }, at({ server: 'https://k' }))).toBe(true);
    expect(windowMatches({ clusters: ['in-cluster'] }, at({ server: 'https://k' }))).toBe(false);
    expect(windowMatches({ clusters: ['in-cluster'] }, at({ name: 'in-cluster' }))).toBe(true);
    expect(windowMatches({ clusters: ['https://*'] }, at({ name: 'in-cluster' }))).toBe(false);
    expect(windowMatches({ clusters: ['*'] }, at({}))).toBe(false);
  });

  it('any one of several namespace patterns is enough; an Application without a namespace has the empty one', () => {
    expect(windowMatches({ namespaces: ['other', 'pharos'] }, app)).toBe(true);
    expect(windowMatches({ namespaces: ['S*'] }, at({}))).toBe(false);
  });

  it('a window without selectors matches nothing, with andOperator too', () => {
    expect(windowMatches({}, app)).toBe(false);
    expect(windowMatches({ andOperator: true }, app)).toBe(false);
    expect(windowMatches({ applications: [], namespaces: [], clusters: [], andOperator: true }, app)).toBe(false);
  });

  it('matchingWindows() of a project without syncWindows is empty', () => {
    expect(matchingWindows(undefined, app)).toEqual([]);
  });
});

describe('window timing edge cases', () => {
  it('a window whose duration does not parse is never active', () => {
    expect(activeSince({ schedule: '* * * * *', duration: 'soon' }, NOW)).toBeUndefined();
    expect(windowActive({ schedule: '0 12 * * *', duration: '1 hour' }, NOW)).toBe(false);
  });

  it("a schedule that never fires is active since Go's zero time, 0001-01-01", () => {
    expect(GO_ZERO_TIME.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(activeSince({ schedule: '0 0 30 2 *', duration: '1m' }, NOW)).toEqual(new Date('0001-01-01T00:00:00Z'));
  });
});
