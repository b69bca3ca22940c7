import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncRefusedError } from '../support/argocd-simulator/index.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import { startTakeover, stopAllTakeovers, takeover } from '../support/takeover/takeover-cli.ts';
import { isLeaseShaped, windowMinutes } from '../../scripts/lib/ownership/index.ts';
import { REPLACED_ANNOTATION } from '../../scripts/lib/takeover/index.ts';

let t: TestTarget;
const FOREIGN = [
  {
    kind: 'allow',
    schedule: '0 6 * * 1-5',
    duration: '14h',
    applications: ['legacy-*'],
    manualSync: true,
    description: 'office hours',
  },
  { kind: 'deny', schedule: '30 22 * * *', duration: '1h30m', namespaces: ['nightly-batch'], timeZone: 'Europe/Paris' },
];

const FOREIGN_META = {
  labels: { 'backup.example.org/include': 'true' },
  annotations: { 'team.example.org/owner': 'platform' },
};
async function foreignMeta() {
  const cm = await t.kube.get('ConfigMap', 'argocd', t.profile.ownership);
  return { labels: cm?.metadata.labels ?? {}, annotations: cm?.metadata.annotations ?? {} };
}

async function appState(name: string) {
  return ((await t.kube.get('Application', 'argocd', name)) as any)?.status as {
    sync: { status: string; revision: string };
    health: { status: string };
  };
}

beforeAll(async () => {
  t = await startTestTarget();
  // Windows someone else owns: the lease must leave them exactly as they are.
  const project = await t.kube.get('AppProject', 'argocd', 'pharos');
  await t.kube.replace('AppProject', 'argocd', {
    ...project!,
    spec: { ...(project!['spec'] as object), syncWindows: FOREIGN },
  });
  // Metadata another tool set on the ownership ConfigMap: acquire, renew and release must keep it.
  await t.kube.mergePatch('ConfigMap', 'argocd', t.profile.ownership, {
    metadata: { labels: FOREIGN_META.labels, annotations: FOREIGN_META.annotations },
  });
  // An uncommitted edit makes compat-web (native runtime) a candidate and compat-admin (no runtime) need make reconcile.
  await appendFile(join(t.repo.dir, 'apps/compat/src/run.sh'), '# local edit\n');
  // The project edit may start syncs; the lease must begin from a quiet cluster, whose last syncs succeeded.
  await t.sim.settle(40);
  t.sim.start(50);
});
afterAll(async () => {
  await stopAllTakeovers();
  await t?.stop();
});

describe('takeover plan', () => {
  it('classifies images against the receipt: in cluster, candidate, needs make reconcile, with the changed input', async () => {
    const run = await takeover(t, 'plan', ['--json', '--explain']);
    expect(run.code, run.stderr).toBe(0);
    const rows = Object.fromEntries(
      (JSON.parse(run.stdout).images as { image: string; status: string; reasons: string[] }[]).map((r) => [
        r.image,
        r,
      ]),
    );
    expect(rows['api']?.status).toBe('in-cluster');
    expect(rows['worker']?.status).toBe('in-cluster');
    expect(rows['compat-web']).toMatchObject({
      status: 'candidate',
      reasons: ['file "apps/compat/src/run.sh" changed'],
    });
    expect(rows['compat-admin']?.status).toBe('needs-reconcile');
    expect(rows['compat-admin']?.reasons.join(' ')).toContain('no takeover runtime');
  });
});

describe('takeover start … Ctrl-C', () => {
  it('holds a deny window Argo CD honours, renews it, runs the image here and hands everything back', async () => {
    const running = startTakeover(t, ['--renew-every', '2s', '--ttl', '10m']);
    await running.waitFor(/holding \[themelio-compat\]/);
    const lease = (await t.lease()) as {
      acquired: string;
      expires: string;
      state: string;
      applications: string[];
      commit: string;
    };
    expect(lease).toMatchObject({ state: 'held', applications: ['themelio-compat'], commit: t.receipt.commit });
    const windows = await t.windows();
    expect(windows.slice(0, 2)).toEqual(FOREIGN);
    expect(await foreignMeta()).toMatchObject(FOREIGN_META);
    const acquired = new Date(lease.acquired);
    expect(windows[2]).toEqual({
      kind: 'deny',
      schedule: `${acquired.getUTCMinutes()} ${acquired.getUTCHours()} ${acquired.getUTCDate()} ${acquired.getUTCMonth() + 1} *`,
      duration: `${windowMinutes(acquired, new Date(lease.expires))}m`,
      applications: ['themelio-compat'],
      manualSync: false,
      timeZone: 'UTC',
    });

    // The workload makes way, its environment goes to the local process.
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
    const log = join(t.repo.dir, '.local/metallo', t.name, 'compat-web.log');
    await expect
      .poll(async () => readFile(log, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toContain('app=from-the-cluster');

    // No self-heal, no manual sync of the leased Application; the others keep syncing.
    await t.kube.mergePatch('Deployment', 'pharos', 'api', { spec: { replicas: 0 } });
    await expect.poll(() => t.replicas('pharos', 'api'), { timeout: 10_000 }).toBe(1);
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
    // The simulator logs a verdict once per change, so read its latest one for the leased Application.
    const verdict = () => t.sim.events.filter((e) => e.application === 'themelio-compat').at(-1)?.message;
    await expect.poll(verdict, { timeout: 10_000 }).toBe('Sync prevented by sync window');
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
    await expect(t.sim.requestSync('themelio-compat')).rejects.toThrow(SyncRefusedError);
    // The self-heal sync above may still be running (waves wait for health): a manual sync is accepted once it ends.
    const manualSync = () =>
      t.sim.requestSync('pharos').then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    await expect.poll(manualSync, { timeout: 10_000 }).toBe('accepted');

    // Renewals move expires and the window's duration together, from the same start.
    await running.waitFor(/step=renew expires=/);
    const renewed = (await t.lease()) as { acquired: string; expires: string };
    const after = await t.windows();
    expect(renewed.acquired).toBe(lease.acquired);
    expect(await foreignMeta()).toMatchObject(FOREIGN_META);
    expect(after[2]).toMatchObject({
      schedule: (windows[2] as { schedule: string }).schedule,
      duration: `${windowMinutes(acquired, new Date(renewed.expires))}m`,
    });
    expect(after.slice(0, 2)).toEqual(FOREIGN);

    running.child.kill('SIGINT');
    expect(await running.exited, running.stderr()).toBe(0);
    expect(await t.lease()).toBeUndefined();
    expect(await foreignMeta()).toMatchObject(FOREIGN_META);
    expect(await t.windows()).toEqual(FOREIGN);
    expect(JSON.stringify(await t.windows())).toBe(JSON.stringify(FOREIGN));
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(2);
    const workload = await t.kube.get('Deployment', 'themelio-compat', 'compat-web');
    expect(workload?.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
    expect(await appState('themelio-compat')).toMatchObject({
      sync: { status: 'Synced', revision: t.receipt.commit },
      health: { status: 'Healthy' },
    });
    expect((await t.windows()).some(isLeaseShaped)).toBe(false);
  });
});
