import { describe, expect, it } from 'vitest';
import { canContinueOperation, canSync, syncDecision, windowMatches } from '../../../scripts/lib/argocd/index.ts';
import type { SyncWindow, WindowTarget } from '../../../scripts/lib/argocd/index.ts';

const NOW = new Date('2026-03-10T12:30:00Z');
const app: WindowTarget = {
  name: 'pharos',
  destination: { server: 'https://kubernetes.default.svc', name: 'in-cluster', namespace: 'pharos' },
};

// Active: started 12:00, lasts 1h. Inactive: starts 18:00.
const ACTIVE = { schedule: '0 12 * * *', duration: '1h' };
const INACTIVE = { schedule: '0 18 * * *', duration: '1h' };
const w = (
  kind: 'allow' | 'deny',
  timing: { schedule: string; duration: string },
  extra: Partial<SyncWindow> = {},
): SyncWindow => ({
  kind,
  ...timing,
  applications: ['pharos'],
  ...extra,
});

const cases: { name: string; windows: SyncWindow[]; auto: boolean; manual: boolean }[] = [
  { name: 'no windows', windows: [], auto: true, manual: true },
  {
    name: 'only windows for other applications',
    windows: [w('deny', ACTIVE, { applications: ['other'] })],
    auto: true,
    manual: true,
  },
  {
    name: 'active deny, manualSync false',
    windows: [w('deny', ACTIVE, { manualSync: false })],
    auto: false,
    manual: false,
  },
  {
    name: 'active deny, manualSync true',
    windows: [w('deny', ACTIVE, { manualSync: true })],
    auto: false,
    manual: true,
  },
  {
    name: 'two active denies, one without manualSync',
    windows: [w('deny', ACTIVE, { manualSync: true }), w('deny', ACTIVE, { manualSync: false })],
    auto: false,
    manual: false,
  },
  {
    name: 'deny beats an active allow',
    windows: [w('allow', ACTIVE, { manualSync: true }), w('deny', ACTIVE)],
    auto: false,
    manual: false,
  },
  { name: 'inactive deny only', windows: [w('deny', INACTIVE)], auto: true, manual: true },
  { name: 'active allow', windows: [w('allow', ACTIVE)], auto: true, manual: true },
  { name: 'allow windows exist, none active', windows: [w('allow', INACTIVE)], auto: false, manual: false },
  {
    name: 'inactive allow with manualSync',
    windows: [w('allow', INACTIVE, { manualSync: true })],
    auto: false,
    manual: true,
  },
  {
    name: 'inactive allows, one without manualSync',
    windows: [w('allow', INACTIVE, { manualSync: true }), w('allow', INACTIVE)],
    auto: false,
    manual: false,
  },
  {
    name: 'one active and one inactive allow',
    windows: [w('allow', ACTIVE), w('allow', INACTIVE)],
    auto: true,
    manual: true,
  },
  {
    name: 'inactive deny and inactive allow',
    windows: [w('deny', INACTIVE), w('allow', INACTIVE, { manualSync: true })],
    auto: false,
    manual: true,
  },
  {
    name: 'active deny matched by namespace glob',
    windows: [{ kind: 'deny', ...ACTIVE, namespaces: ['pha*'] }],
    auto: false,
    manual: false,
  },
  {
    name: 'active deny matched by cluster server glob across "/"',
    windows: [{ kind: 'deny', ...ACTIVE, clusters: ['https://kubernetes.*'] }],
    auto: false,
    manual: false,
  },
  {
    name: 'active deny matched by cluster name',
    windows: [{ kind: 'deny', ...ACTIVE, clusters: ['in-cluster'] }],
    auto: false,
    manual: false,
  },
  {
    name: 'OR of selectors: name does not match, namespace does',
    windows: [{ kind: 'deny', ...ACTIVE, applications: ['other'], namespaces: ['pharos'] }],
    auto: false,
    manual: false,
  },
  {
    name: 'andOperator: name matches, namespace does not',
    windows: [{ kind: 'deny', ...ACTIVE, applications: ['pharos'], namespaces: ['other'], andOperator: true }],
    auto: true,
    manual: true,
  },
  {
    name: 'andOperator: all selectors match',
    windows: [{ kind: 'deny', ...ACTIVE, applications: ['pha*'], namespaces: ['pharos'], andOperator: true }],
    auto: false,
    manual: false,
  },
  {
    name: 'window without selectors matches nothing',
    windows: [{ kind: 'deny', ...ACTIVE }],
    auto: true,
    manual: true,
  },
  {
    name: 'active deny in Berlin time',
    windows: [w('deny', { schedule: '0 13 * * *', duration: '1h' }, { timeZone: 'Europe/Berlin' })],
    auto: false,
    manual: false,
  },
];

describe('canSync() follows SyncWindows.Matches(app).CanSync(isManual)', () => {
  for (const c of cases) {
    it(`${c.name}: automated ${c.auto ? 'may' : 'may not'} sync, manual ${c.manual ? 'may' : 'may not'}`, () => {
      expect(canSync(c.windows, app, NOW, { manual: false })).toBe(c.auto);
      expect(canSync(c.windows, app, NOW, { manual: true })).toBe(c.manual);
    });
  }

  it('syncDecision() names the active windows and why', () => {
    const deny = w('deny', ACTIVE);
    const decision = syncDecision([deny, w('allow', INACTIVE)], app, NOW, { manual: false });
    expect(decision.reason).toBe('active-deny');
    expect(decision.active).toEqual([{ window: deny, since: new Date('2026-03-10T12:00:00Z') }]);
  });
});

describe('windowMatches() uses Argo CD globs', () => {
  it('matches character classes, negated classes and alternatives; an invalid glob matches nothing', () => {
    const target = (name: string): WindowTarget => ({ name, destination: {} });
    expect(windowMatches({ applications: ['svc-[ab]'] }, target('svc-a'))).toBe(true);
    expect(windowMatches({ applications: ['svc-[!ab]'] }, target('svc-a'))).toBe(false);
    expect(windowMatches({ applications: ['{web,api}-*'] }, target('api-x'))).toBe(true);
    expect(windowMatches({ applications: ['svc-[ab'] }, target('svc-[ab'))).toBe(false);
    expect(windowMatches({ applications: ['web?'] }, target('web1'))).toBe(true);
  });
});

describe('canContinueOperation() re-checks an operation in progress', () => {
  const started = (iso: string) => ({ manual: false, startedAt: new Date(iso) });
  it('a blocking deny window stops an operation in progress', () => {
    expect(canContinueOperation([w('deny', ACTIVE)], app, NOW, started('2026-03-10T11:59:00Z'))).toBe(false);
  });
  it('syncOverrun on a deny window lets an operation that started before the window continue, not one started after', () => {
    const deny = w('deny', ACTIVE, { syncOverrun: true });
    expect(canContinueOperation([deny], app, NOW, started('2026-03-10T11:59:00Z'))).toBe(true);
    expect(canContinueOperation([deny], app, NOW, started('2026-03-10T12:10:00Z'))).toBe(false);
  });
  it('syncOverrun on an allow window lets an operation started during it continue after it ends', () => {
    const allow = w('allow', { schedule: '0 11 * * *', duration: '1h' }, { syncOverrun: true });
    expect(canContinueOperation([allow], app, NOW, started('2026-03-10T11:50:00Z'))).toBe(true);
    expect(canContinueOperation([{ ...allow, syncOverrun: false }], app, NOW, started('2026-03-10T11:50:00Z'))).toBe(
      false,
    );
    expect(canContinueOperation([allow], app, NOW, started('2026-03-10T12:10:00Z'))).toBe(false);
  });
  it('a manual operation passes a deny window with manualSync', () => {
    expect(
      canContinueOperation([w('deny', ACTIVE, { manualSync: true })], app, NOW, { manual: true, startedAt: NOW }),
    ).toBe(true);
  });
});
