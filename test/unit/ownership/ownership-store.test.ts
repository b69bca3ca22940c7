import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { ConflictError } from '../../../scripts/lib/ports/kube-error.ts';
import { readOwnership, writeOwnership } from '../../../scripts/lib/ownership/ownership-store.ts';
import { newLease } from '../../../scripts/lib/ownership/lease-record.ts';
import { removeLeaseWindows } from '../../../scripts/lib/ownership/remove-lease.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd'] });
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(() => server.close());

const commit = 'c'.repeat(40);

describe('ownership ConfigMap store', () => {
  it('creates the ConfigMap on the first write and reads the records back', async () => {
    const ref = { namespace: 'argocd', name: 'own-create' };
    const empty = await readOwnership(kube, ref);
    expect(empty.resourceVersion).toBeUndefined();
    const written = await writeOwnership(kube, empty, { revision: commit });
    expect(written.resourceVersion).toBeDefined();
    expect((await readOwnership(kube, ref)).records.revision).toBe(commit);
  });

  it('refuses a write from a stale snapshot with a ConflictError and keeps the newer value', async () => {
    const ref = { namespace: 'argocd', name: 'own-cas' };
    const first = await writeOwnership(kube, await readOwnership(kube, ref), { revision: commit });
    await writeOwnership(kube, first, { revision: 'd'.repeat(40) });
    await expect(writeOwnership(kube, first, { revision: 'e'.repeat(40) })).rejects.toBeInstanceOf(ConflictError);
    expect((await readOwnership(kube, ref)).records.revision).toBe('d'.repeat(40));
  });

  it('keeps labels and annotations others set through lease writes (take, renew, release)', async () => {
    const ref = { namespace: 'argocd', name: 'own-meta' };
    await writeOwnership(kube, await readOwnership(kube, ref), { revision: commit });
    await kube.mergePatch('ConfigMap', 'argocd', 'own-meta', {
      metadata: { labels: { 'backup.example.org/include': 'true' }, annotations: { 'team.example.org/owner': 'x' } },
    });
    const holder = { checkout: '/src/a', workstation: 'ws' };
    const lease = newLease(holder, ['pharos'], commit, new Date('2026-10-14T12:00:00Z'), 3_600_000);
    const taken = await writeOwnership(kube, await readOwnership(kube, ref), { lease });
    const renewed = await writeOwnership(kube, taken, { lease: { ...lease, expires: '2026-10-14T14:00:00Z' } });
    await writeOwnership(kube, renewed, { lease: null });
    const cm = await kube.get('ConfigMap', 'argocd', 'own-meta');
    expect(cm?.metadata.labels).toMatchObject({ 'backup.example.org/include': 'true' });
    expect(cm?.metadata.annotations).toMatchObject({ 'team.example.org/owner': 'x' });
    expect(cm?.['data']).toEqual({ revision: JSON.stringify(commit) });
  });

  it('turns two racing creates into one success and one ConflictError', async () => {
    const ref = { namespace: 'argocd', name: 'own-race' };
    const a = await readOwnership(kube, ref);
    const b = await readOwnership(kube, ref);
    const results = await Promise.allSettled([
      writeOwnership(kube, a, { revision: commit }),
      writeOwnership(kube, b, { revision: 'f'.repeat(40) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ConflictError);
  });
});

describe('removeLeaseWindows()', () => {
  it("removes only the lease's deny window from the AppProject of its Applications", async () => {
    await kube.create('Application', 'argocd', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'lw-app' },
      spec: { project: 'lw-proj' },
    });
    const other = { kind: 'deny', schedule: '0 22 * * *', duration: '1h', applications: ['lw-app'], manualSync: true };
    const ours = {
      kind: 'deny',
      schedule: '5 12 14 10 *',
      duration: '720m',
      applications: ['lw-app'],
      manualSync: false,
      timeZone: 'UTC',
    };
    const allow = { kind: 'allow', schedule: '* * * * *', duration: '1h', applications: ['lw-app'], manualSync: false };
    await kube.create('AppProject', 'argocd', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'lw-proj' },
      spec: { syncWindows: [other, ours, allow] },
    });
    expect(await removeLeaseWindows(kube, 'argocd', { applications: ['lw-app'] })).toEqual(['lw-proj']);
    const project = await kube.get('AppProject', 'argocd', 'lw-proj');
    expect((project?.['spec'] as { syncWindows: unknown[] }).syncWindows).toEqual([other, allow]);
  });
});
