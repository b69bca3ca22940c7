// Decisions of planRecovery() that mutation testing showed no earlier test protected.
import { describe, expect, it } from 'vitest';
import { chartMajor, planRecovery } from '../../../../scripts/lib/host/chart/recovery-plan.ts';
import type { HistoryRow } from '../../../../scripts/lib/host/chart/helm-output.ts';

const row = (revision: number, status: HistoryRow['status'], chart = 'hephaestus-1.2.0'): HistoryRow => ({
  revision,
  status,
  chart,
  app_version: '1.2.0',
  description: '',
});

describe('planRecovery(): edges of the history', () => {
  it('installs when Helm returns an empty history', () => {
    expect(planRecovery([])).toEqual({ kind: 'install' });
  });

  it('rolls back when either chart name carries no version: only two readable, different majors make a cutover', () => {
    const pending = row(2, 'pending-upgrade', 'hephaestus-2.0.0');
    expect(planRecovery([row(1, 'deployed', 'hephaestus'), pending])).toEqual({
      kind: 'rollback',
      revision: 1,
      pending,
    });
    const unversioned = row(2, 'pending-upgrade', 'hephaestus');
    expect(planRecovery([row(1, 'deployed', 'hephaestus-1.0.0'), unversioned])).toEqual({
      kind: 'rollback',
      revision: 1,
      pending: unversioned,
    });
  });

  it('a pending cutover names the revision it stopped at and the chart it came from', () => {
    const pending = row(3, 'pending-install', 'hephaestus-2.0.0');
    expect(
      planRecovery([row(1, 'superseded', 'hephaestus-1.4.0'), row(2, 'deployed', 'hephaestus-1.5.0'), pending]),
    ).toEqual({ kind: 'pending-cutover', pending, from: 'hephaestus-1.5.0' });
  });
});

describe('chartMajor(): only a whole name-version string', () => {
  it('reads multi-digit patch versions and build metadata', () => {
    expect(chartMajor('hephaestus-1.2.34')).toBe(1);
    expect(chartMajor('hephaestus-3.0.0+build.7')).toBe(3);
  });

  it('reads nothing when the version does not end the name', () => {
    expect(chartMajor('hephaestus-1.2.3x')).toBeUndefined();
    expect(chartMajor('hephaestus-1.2')).toBeUndefined();
  });
});
