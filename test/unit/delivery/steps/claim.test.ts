import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../../scripts/lib/ports/kube.ts';
import { claim } from '../../../../scripts/lib/delivery/steps/claim.ts';
import type { DeliveryContext, DeliveryState } from '../../../../scripts/lib/delivery/delivery-context.ts';
import { leaseId, leaseWindow, REPLACED_ANNOTATION, readOwnership } from '../../../../scripts/lib/ownership/index.ts';
import type { LeaseRecord } from '../../../../scripts/lib/ownership/index.ts';
import { startKubeApiServer } from '../../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd', 'apps'] });
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(() => server.close());

const now = new Date('2026-03-01T12:00:00Z');
const lease: LeaseRecord = {
  schema: 1,
  holder: { checkout: '/home/bo/platform', workstation: 'bo-desk' },
  applications: ['web'],
  commit: 'a'.repeat(40),
  acquired: '2026-03-01T00:00:00Z',
  expires: '2026-03-01T11:00:00Z',
  state: 'held',
};
const userWindow = { kind: 'deny', schedule: '0 22 * * *', duration: '1h', applications: ['web'], manualSync: true };

/** A context the claim step reads: the target's names, a clock that has passed the lease's expiry. */
function context(
  lines: string[],
  extra: Partial<DeliveryContext> = {},
  ownership = 'claim-ownership',
): DeliveryContext {
  return {
    ...extra,
    profile: {
      name: 'claim-test',
      namespaces: { argocd: 'argocd' },
      ownership,
      project: 'claim-project',
      delivery: { ttl: 3_600_000 },
    },
    kube,
    clock: { now: () => now },
    holder: { checkout: '/home/ana/platform', workstation: 'ana-laptop' },
    log: (line: string) => lines.push(line),
  } as unknown as DeliveryContext;
}

describe('the claim step, when a lease expired after the first clean-up', () => {
  it('restores what the lease replaced, removes its window, then its record, and claims', async () => {
    await kube.create('Application', 'argocd', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web' },
      spec: { project: 'claim-project', destination: { namespace: 'apps' } },
    });
    await kube.create('AppProject', 'argocd', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'claim-project' },
      spec: { syncWindows: [userWindow, leaseWindow(lease)] },
    });
    await kube.create('Deployment', 'apps', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'apps',
        labels: { 'pharos.dev/takeover-replaced': 'true' },
        annotations: { [REPLACED_ANNOTATION]: JSON.stringify({ lease: leaseId(lease), replicas: 2 }) },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
      },
    });
    await kube.create('ConfigMap', 'argocd', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'claim-ownership', namespace: 'argocd' },
      data: { lease: JSON.stringify(lease) },
    });
    const lines: string[] = [];
    const state: DeliveryState = { commit: 'c'.repeat(40) };
    const result = await claim.run(context(lines), state);

    const web = await kube.get('Deployment', 'apps', 'web');
    expect((web?.['spec'] as { replicas: number }).replicas).toBe(2);
    expect(web?.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
    const project = await kube.get('AppProject', 'argocd', 'claim-project');
    expect((project?.['spec'] as { syncWindows: unknown[] }).syncWindows).toEqual([userWindow]);
    const records = (await readOwnership(kube, { namespace: 'argocd', name: 'claim-ownership' })).records;
    expect(records.lease).toBeUndefined();
    expect(records.delivery?.holder.workstation).toBe('ana-laptop');
    expect(state.claimed).toBe(true);
    // The hand-back order: the workload first, the window next, the record last.
    expect(result.summary).toMatch(
      /restored Deployment apps\/web to 2 replicas, removed the lease window from AppProject claim-project, removed the lease record of bo-desk:\/home\/bo\/platform/,
    );
  });
});

describe("the claim step, given what stops an expired lease's runtimes on this workstation", () => {
  it('stops them with the expired record after restoring the workload and before the window and record go', async () => {
    await kube.create('ConfigMap', 'argocd', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'claim-ownership-runtimes', namespace: 'argocd' },
      data: { lease: JSON.stringify(lease) },
    });
    const stopped: LeaseRecord[] = [];
    const stopLeaseRuntimes = async (record: LeaseRecord) => {
      stopped.push(record);
      // The record still exists while the runtimes stop: a crash here leaves the lease for the next clean-up.
      const held = await readOwnership(kube, { namespace: 'argocd', name: 'claim-ownership-runtimes' });
      expect(held.records.lease).toEqual(lease);
      return ['stopped api (container 0123abcd)'];
    };
    const state: DeliveryState = { commit: 'c'.repeat(40) };
    const result = await claim.run(context([], { stopLeaseRuntimes }, 'claim-ownership-runtimes'), state);

    expect(stopped).toEqual([lease]);
    expect(result.summary).toMatch(
      /cleaned up: stopped api \(container 0123abcd\), .*removed the lease record of bo-desk/,
    );
    const records = (await readOwnership(kube, { namespace: 'argocd', name: 'claim-ownership-runtimes' })).records;
    expect(records.lease).toBeUndefined();
    expect(records.cleaned?.by).toBe('a delivery');
  });
});
