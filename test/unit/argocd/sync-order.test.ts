import { describe, expect, it } from 'vitest';
import { hookPhases, kindOrder, syncGroups, syncTasks, syncWave } from '../../../scripts/lib/argocd/sync-order.ts';

const obj = (kind: string, name: string, annotations: Record<string, string> = {}) => ({
  kind,
  metadata: { name, annotations },
});
const names = (tasks: { phase: string; wave: number; object: { kind: string; metadata: { name: string } } }[]) =>
  tasks.map((t) => `${t.phase}/${t.wave}/${t.object.kind}/${t.object.metadata.name}`);

describe("Argo CD's sync order (gitops-engine sync_tasks.go)", () => {
  it('kindOrder: listed kinds are negative in Helm order, a custom resource is 0 and comes last', () => {
    expect(kindOrder('Namespace')).toBe(-34);
    expect(kindOrder('APIService')).toBe(-1);
    expect(kindOrder('MyCRD')).toBe(0);
    expect(kindOrder('NetworkPolicy')).toBeLessThan(kindOrder('ServiceAccount'));
    expect(kindOrder('Role')).toBeLessThan(kindOrder('RoleBinding'));
    expect(kindOrder('StatefulSet')).toBeLessThan(kindOrder('Job'));
  });

  it('reads the sync wave as an integer, anything else as wave 0', () => {
    expect(syncWave(obj('Job', 'a', { 'argocd.argoproj.io/sync-wave': '-4' }))).toBe(-4);
    expect(syncWave(obj('Job', 'a', { 'argocd.argoproj.io/sync-wave': '+2' }))).toBe(2);
    expect(syncWave(obj('Job', 'a', { 'argocd.argoproj.io/sync-wave': 'early' }))).toBe(0);
    expect(syncWave(obj('Job', 'a'))).toBe(0);
  });

  it('reads hook phases, comma-separated; Skip removes the resource from the sync', () => {
    expect(hookPhases(obj('Job', 'a'))).toBeUndefined();
    expect(hookPhases(obj('Job', 'a', { 'argocd.argoproj.io/hook': 'PreSync, PostSync' }))).toEqual([
      'PreSync',
      'PostSync',
    ]);
    expect(hookPhases(obj('Job', 'a', { 'argocd.argoproj.io/hook': 'Skip' }))).toBe('Skip');
    expect(syncTasks([obj('Job', 'a', { 'argocd.argoproj.io/hook': 'Skip' })])).toEqual([]);
  });

  it('orders by phase, then wave, then kind, then name', () => {
    const tasks = syncTasks([
      obj('Deployment', 'b'),
      obj('Deployment', 'a'),
      obj('Job', 'post', { 'argocd.argoproj.io/hook': 'PostSync' }),
      obj('Job', 'pre', { 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/sync-wave': '5' }),
      obj('Service', 'svc'),
      obj('ConfigMap', 'early', { 'argocd.argoproj.io/sync-wave': '-1' }),
      obj('MyCRD', 'c'),
    ]);
    expect(names(tasks)).toEqual([
      'PreSync/5/Job/pre',
      'Sync/-1/ConfigMap/early',
      'Sync/0/Service/svc',
      'Sync/0/Deployment/a',
      'Sync/0/Deployment/b',
      'Sync/0/MyCRD/c',
      'PostSync/0/Job/post',
    ]);
    expect(syncGroups(tasks.map((t) => t.object)).map((g) => `${g.phase}/${g.wave}:${g.tasks.length}`)).toEqual([
      'PreSync/5:1',
      'Sync/-1:1',
      'Sync/0:4',
      'PostSync/0:1',
    ]);
  });
});
