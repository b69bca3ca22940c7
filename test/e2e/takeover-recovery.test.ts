import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestTarget } from '../support/takeover/test-target.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import { inProcess } from '../support/takeover/in-process.ts';
import { isLeaseShaped, LeaseError, windowMinutes } from '../../scripts/lib/ownership/index.ts';
import { acquire, cleanupTarget, removeLease, stopRuntimes } from '../../scripts/lib/takeover/index.ts';
import { readOwnership } from '../../scripts/lib/ownership/ownership-store.ts';
import { KubeError } from '../../scripts/lib/ports/kube-error.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import { DEVBOX_NAMESPACES } from '../support/devbox/devbox-namespaces.ts';

let t: TestTarget;
let other: string;

beforeAll(async () => {
  t = await startTestTarget({ syncTimeout: '30s' });
  other = await t.cloneCheckout();
  t.sim.start(50);
});
afterAll(async () => {
  await t?.stop();
});

const leaseWindows = async () =>
  (await t.windows()).filter(isLeaseShaped) as { duration: string; schedule: string; applications: string[] }[];

async function expectClean(): Promise<void> {
  expect(await t.lease()).toBeUndefined();
  expect(await leaseWindows()).toEqual([]);
  await expect.poll(() => t.replicas('themelio-compat', 'compat-web'), { timeout: 15_000 }).toBe(2);
}

describe('racing acquires', () => {
  it('two checkouts acquiring at once: exactly one wins, 100 times, never two records or two windows', async () => {
    const a = await inProcess(t);
    const b = await inProcess(t, other);
    const request = {
      applications: ['themelio-compat'],
      commit: t.receipt.commit,
      liveHere: false,
      handBack: async () => {},
    };
    for (let run = 0; run < 100; run++) {
      const results = await Promise.allSettled([acquire(a.ctx, request), acquire(b.ctx, request)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost[0]?.reason).toBeInstanceOf(LeaseError);
      expect((lost[0]?.reason as LeaseError).code).toBe('lease-held');
      const record = (await t.lease()) as { holder: { checkout: string }; state: string };
      expect(record.state).toBe('held');
      expect(await leaseWindows()).toHaveLength(1);
      expect(record.holder.checkout).toBe(
        (won[0] as PromiseFulfilledResult<{ record: { holder: { checkout: string } } }>).value.record.holder.checkout,
      );
      // Removed as the next command removes a lease (record and window), without waiting on Argo CD each time.
      const snapshot = await readOwnership(t.kube, { namespace: 'argocd', name: t.profile.ownership });
      await removeLease(
        { kube: t.kube, profile: t.profile, clock: t.clock, log: () => {} },
        snapshot,
        snapshot.records.lease!,
      );
    }
    await expectClean();
  });
});

describe('acquire step (3)', () => {
  it('terminates an operation the lease window now blocks (here: for a superseded revision) before the lease is held', async () => {
    await t.sim.stop();
    const superseded = await t.repo.git('rev-parse', 'HEAD~1');
    await t.kube.mergePatch('Application', 'argocd', 'themelio-compat', {
      operation: { sync: { revision: superseded }, initiatedBy: { username: 'someone' } },
    });
    const lines: string[] = [];
    // Argo CD resumes once our window is in place: it finds the operation blocked by it.
    const p = await inProcess(t, t.repo.dir, {
      log: (line) => lines.push(line),
      afterStep: (step) => (step === 'acquire:window' ? t.sim.start(20) : undefined),
    });
    const session = await p.start();
    expect(lines.some((l) => l.startsWith('acquire: terminating the operation of themelio-compat'))).toBe(true);
    const app = (await t.kube.get('Application', 'argocd', 'themelio-compat')) as any;
    expect(app.operation).toBeUndefined();
    expect(app.status.operationState).toMatchObject({ phase: 'Failed', message: 'Operation terminated' });
    expect(app.status.sync.revision).toBe(t.receipt.commit);
    await session.handBack();
    await expectClean();
  });
});

describe('interruptions', () => {
  it('a dropped API connection fails one renewal; the next one renews record and window together', async () => {
    const p = await inProcess(t);
    const session = await p.start();
    await t.server.refuseConnections();
    await expect(session.renew()).rejects.toBeInstanceOf(KubeError);
    await t.server.recover();
    t.clock.advance(5 * 60_000);
    const renewed = await session.renew();
    expect(renewed.kind).toBe('renewed');
    const record = (await t.lease()) as { acquired: string; expires: string };
    expect(record.expires).toBe(renewed.kind === 'renewed' ? renewed.expires : '');
    expect((await leaseWindows())[0]?.duration).toBe(
      `${windowMinutes(new Date(record.acquired), new Date(record.expires))}m`,
    );
    await session.handBack();
    await expectClean();
  });

  it('an acquire interrupted by an outage is continued by the next start of the same checkout', async () => {
    const p = await inProcess(t, t.repo.dir, {
      afterStep: (step) => (step === 'acquire:window' ? t.server.unavailable(50) : undefined),
    });
    await expect(p.start()).rejects.toBeInstanceOf(KubeError);
    await t.server.recover();
    expect((await t.lease())?.['state']).toBe('acquiring');
    const again = await inProcess(t);
    const session = await again.start();
    expect((await t.lease())?.['state']).toBe('held');
    expect(await leaseWindows()).toHaveLength(1);
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
    await session.handBack();
    await expectClean();
  });

  it('a hand-back interrupted by an outage is finished by release', async () => {
    const p = await inProcess(t, t.repo.dir, {
      afterStep: (step) => (step === 'handback:detach' ? t.server.unavailable(50) : undefined),
    });
    const session = await p.start();
    await expect(session.handBack()).rejects.toBeInstanceOf(KubeError);
    await t.server.recover();
    expect((await t.lease())?.['state']).toBe('handing-back');
    await (await inProcess(t)).release();
    await expectClean();
  });

  it('a workstation that slept past expires finds the lease lost, hands back, and Argo CD had already healed', async () => {
    const p = await inProcess(t);
    const session = await p.start();
    t.clock.advance(13 * 3_600_000);
    await expect.poll(() => t.replicas('themelio-compat', 'compat-web'), { timeout: 15_000 }).toBe(2);
    const outcome = await session.renew();
    expect(outcome).toMatchObject({ kind: 'lost', reason: expect.stringContaining('expired') });
    await session.handBack();
    await expectClean();
  });

  it('under the project-writer fence, only its administrator cleans up an expired lease; anyone else is refused before a write', async () => {
    const b = await inProcess(t, other);
    const session = await b.start();
    t.clock.advance(13 * 3_600_000);
    const fence = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pharos-project-writer' },
      data: { administrator: 'system:admin', argocdNamespace: 'argocd' },
    };
    await t.kube.create('ConfigMap', 'argocd', fence);
    try {
      t.server.addUser('developer-token', 'jane');
      for (const ns of DEVBOX_NAMESPACES)
        t.server.grant(ns, 'jane', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
      const jane = kubeFromConfig(t.server.kubeConfig('default', 'developer-token'));
      const before = [await t.lease(), await leaseWindows()];
      const refused = cleanupTarget({ kube: jane, profile: t.profile, clock: t.clock, log: () => {} });
      await expect(refused).rejects.toMatchObject({ code: 'project-writer', exitCode: 2 });
      await expect(refused).rejects.toThrow(
        `Cannot clean up an expired or unfinished lease on target "${t.name}": this kubeconfig authenticates as "jane"`,
      );
      expect([await t.lease(), await leaseWindows()]).toEqual(before);
      const cleaned = await cleanupTarget({ kube: t.kube, profile: t.profile, clock: t.clock, log: () => {} });
      expect(cleaned.done.join('\n')).toMatch(
        /removed the lease window from AppProject pharos[\s\S]*removed the lease record/,
      );
      await expectClean();
      expect((await session.renew()).kind).toBe('lost');
      await stopRuntimes(b.ctx, session.state.runtimes);
    } finally {
      await t.kube.delete('ConfigMap', 'argocd', 'pharos-project-writer');
    }
  });

  it('an expired lease of another checkout is removed (record, window, replaced workloads) by the next command', async () => {
    const b = await inProcess(t, other);
    const session = await b.start();
    t.clock.advance(13 * 3_600_000);
    const cleaned = await cleanupTarget({ kube: t.kube, profile: t.profile, clock: t.clock, log: () => {} });
    expect(cleaned.done.join('\n')).toMatch(
      /removed the lease window from AppProject pharos[\s\S]*removed the lease record/,
    );
    await expectClean();
    const web = await t.kube.get('Deployment', 'themelio-compat', 'compat-web');
    expect(Object.keys(web?.metadata.annotations ?? {}).some((k) => k.startsWith('pharos.dev/'))).toBe(false);
    // That checkout's own process would stop its runtime when its next renewal finds the lease gone.
    expect((await session.renew()).kind).toBe('lost');
    expect(await stopRuntimes(b.ctx, session.state.runtimes)).toHaveLength(1);
  });
});
