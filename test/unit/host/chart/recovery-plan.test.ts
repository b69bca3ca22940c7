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

describe('planRecovery()', () => {
  it('installs when Helm knows no release, or only an uninstalled one', () => {
    expect(planRecovery(undefined)).toEqual({ kind: 'install' });
    expect(planRecovery([row(1, 'uninstalled')])).toEqual({ kind: 'install' });
  });

  it('upgrades over a deployed or a failed last revision (Helm upgrades a failed release)', () => {
    expect(planRecovery([row(1, 'deployed')]).kind).toBe('upgrade');
    expect(planRecovery([row(1, 'superseded'), row(2, 'failed')]).kind).toBe('upgrade');
  });

  it('rolls a pending-* revision back to the newest deployed or superseded one of the same major version', () => {
    const plan = planRecovery([
      row(1, 'superseded'),
      row(2, 'deployed'),
      row(3, 'failed'),
      row(4, 'pending-upgrade', 'hephaestus-1.3.0'),
    ]);
    expect(plan).toMatchObject({ kind: 'rollback', revision: 2 });
    expect(planRecovery([row(1, 'superseded'), row(2, 'failed'), row(3, 'pending-rollback')])).toMatchObject({
      kind: 'rollback',
      revision: 1,
    });
  });

  it('names a release Helm never finished: no deployed or superseded revision to go back to', () => {
    expect(planRecovery([row(1, 'pending-install')])).toMatchObject({ kind: 'never-finished' });
    expect(planRecovery([row(1, 'failed'), row(2, 'pending-upgrade')])).toMatchObject({ kind: 'never-finished' });
  });

  it('stops at a pending revision of another major version: a cutover never rolls old workloads onto a migrated database', () => {
    expect(
      planRecovery([row(1, 'deployed', 'hephaestus-0.95.1'), row(2, 'pending-upgrade', 'hephaestus-1.0.0')]),
    ).toMatchObject({ kind: 'pending-cutover', from: 'hephaestus-0.95.1' });
  });

  it('reads the major version from a chart name-version string', () => {
    expect(chartMajor('hephaestus-0.95.1')).toBe(0);
    expect(chartMajor('my-chart-12.0.3-rc.1')).toBe(12);
    expect(chartMajor('hephaestus')).toBeUndefined();
  });
});

describe('runningWriters()', () => {
  it('counts controllers that still have Pods and Pods that have not finished', async () => {
    const { runningWriters } = await import('../../../../scripts/lib/host/chart/writer-workloads.ts');
    const deployment = (name: string, replicas: number) => ({
      kind: 'Deployment',
      metadata: { name },
      status: { replicas, readyReplicas: replicas },
    });
    const pod = (name: string, phase?: string) => ({
      metadata: { name },
      ...(phase === undefined ? {} : { status: { phase } }),
    });
    expect(
      runningWriters(
        [deployment('h-server', 0), deployment('h-worker', 2)],
        [pod('done', 'Succeeded'), pod('s-1', 'Running'), pod('s-2')],
      ),
    ).toEqual(['Deployment h-worker (2 Pods)', 'Pod s-1 (Running)', 'Pod s-2']);
    expect(runningWriters([deployment('h-server', 0)], [pod('x', 'Failed')])).toEqual([]);
  });
});

describe('planRecovery(): an uninstall that stopped', () => {
  it('names the uninstall again: Helm upgrades nothing over an uninstalling release ("has no deployed releases")', () => {
    expect(planRecovery([row(1, 'superseded'), row(2, 'uninstalling')])).toEqual({
      kind: 'uninstalling',
      pending: row(2, 'uninstalling'),
    });
  });
});
