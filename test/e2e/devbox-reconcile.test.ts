import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { readReceipt } from '../../scripts/lib/target/receipt.ts';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { DELIVERY_STEPS } from '../../scripts/lib/delivery/delivery-steps.ts';
import { deliver } from '../../scripts/lib/delivery/deliver.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { leaseId } from '../../scripts/lib/ownership/holder.ts';
import type { LeaseRecord } from '../../scripts/lib/ownership/lease-record.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const ALL = ['api', 'compat-admin', 'compat-web', 'migrate', 'worker'];

let box: TestDevbox;

async function reconcile(...extra: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  const args = [
    join(TOP, 'scripts/devbox.ts'),
    'reconcile',
    '--target',
    box.target,
    '--targets',
    box.targetsDir,
    '--repo',
    box.repo.dir,
    '--json',
    ...extra,
  ];
  const result = await exec(NODE, args, { timeoutMs: 170_000 });
  const stdout = result.stdout.toString('utf8');
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: result.code, stdout, stderr: result.stderr, json };
}

const built = (json: any) =>
  (json.plan as { image: string; build: boolean }[])
    .filter((p) => p.build)
    .map((p) => p.image)
    .sort();
const receiptFile = () => join(box.repo.dir, '.local/metallo', box.target, 'receipt.json');
const images = async () => JSON.parse((await box.ownershipData())?.['images'] ?? '{}') as Record<string, string>;
const snapshot = async () => ({
  ownership: await box.ownershipData(),
  root: await box.rootSource(),
  receipt: await readFile(receiptFile(), 'utf8').catch(() => undefined),
});

beforeAll(async () => {
  box = await startTestDevbox();
});
afterAll(async () => {
  await box?.stop();
});

describe('make reconcile on a dev box', () => {
  it('first delivery builds every image and records them by digest in ConfigMap, root inputs and receipt', async () => {
    const head = await box.repo.git('rev-parse', 'HEAD');
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(built(run.json)).toEqual(ALL);
    const data = await box.ownershipData();
    expect(JSON.parse(data?.['revision'] ?? '""')).toBe(head);
    expect(data?.['delivery']).toBeUndefined();
    const recorded = await images();
    expect(Object.keys(recorded).sort()).toEqual(ALL);
    for (const [name, reference] of Object.entries(recorded)) {
      const digest = reference.split('@')[1] ?? '';
      expect(reference).toBe(`${box.registry.host}/${name}@${digest}`);
      expect(await box.registry.digest(name, digest)).toBe(digest);
    }
    const receipt = await readReceipt(receiptFile());
    expect(receipt?.commit).toBe(head);
    expect(Object.fromEntries(Object.entries(receipt?.images ?? {}).map(([k, v]) => [k, v.reference]))).toEqual(
      recorded,
    );
    expect(await box.repo.git('--git-dir', box.repo.bare, 'rev-parse', 'refs/heads/devbox')).toBe(head);
    const journal = await readJournal(join(box.repo.dir, '.local/metallo', box.target, 'journal.jsonl'));
    expect(journal.map((e) => e.step)).toEqual(DELIVERY_STEPS.map((s) => s.name));
  });

  it('after delivery the workloads Argo CD renders name each image by the digest the registry holds', async () => {
    const recorded = await images();
    expect(await box.argocd.workloadImages()).toEqual({
      'pharos/Deployment/api': recorded['api'],
      'pharos/Deployment/worker': recorded['worker'],
      'pharos/Job/migrate': recorded['migrate'],
      'themelio-compat/Deployment/compat-admin': recorded['compat-admin'],
      'themelio-compat/Deployment/compat-web': recorded['compat-web'],
    });
  });

  it('a second delivery of the same commit builds none and changes no recorded image', async () => {
    const before = await images();
    const jobs = box.buildkit.builds.length;
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(built(run.json)).toEqual([]);
    expect(box.buildkit.builds.length).toBe(jobs);
    expect(await images()).toEqual(before);
  });

  it('--dry-run names the images a commit changes and why, and changes nothing', async () => {
    await box.repo.commit('compat: build script', { 'apps/compat/src/build.sh': 'echo "built $1 $2 v2"\n' });
    const before = await snapshot();
    const run = await reconcile('--dry-run');
    expect(run.code, run.stderr).toBe(0);
    expect(built(run.json)).toEqual(['compat-admin', 'compat-web']);
    const web = run.json.plan.find((p: { image: string }) => p.image === 'compat-web');
    expect(web.reasons).toEqual(['file "apps/compat/src/build.sh" changed']);
    expect(await snapshot()).toEqual(before);
  });

  it("a commit touching one service's input builds exactly the images holding it (two entries sharing a Dockerfile both rebuild)", async () => {
    const old = await images();
    const run = await reconcile('--parallel', '2');
    expect(run.code, run.stderr).toBe(0);
    expect(built(run.json)).toEqual(['compat-admin', 'compat-web']);
    const now = await images();
    expect(now['compat-web']).not.toBe(old['compat-web']);
    expect(now['compat-admin']).not.toBe(old['compat-admin']);
    expect(now['compat-web']).not.toBe(now['compat-admin']);
    for (const name of ['api', 'worker', 'migrate']) expect(now[name]).toBe(old[name]);
  });

  it('a change to an excluded test file builds nothing', async () => {
    await box.repo.commit('tests only', {
      'services/api/tests/serve.test.sh': 'echo "another test"\n',
      'apps/compat/src/app.spec.js': '// spec\n',
    });
    const before = await images();
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(built(run.json)).toEqual([]);
    expect(await images()).toEqual(before);
    expect(JSON.parse((await box.ownershipData())?.['revision'] ?? '""')).toBe(await box.repo.git('rev-parse', 'HEAD'));
  });

  it('a broken Dockerfile fails with exit 1 and leaves ConfigMap, root inputs and local receipt exactly as before', async () => {
    const before = await snapshot();
    await box.repo.commit('broken worker', {
      'services/worker/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE} AS base\nRUN exit 3\nFROM base AS migrate\nFROM base AS worker\n',
    });
    const run = await reconcile();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Cannot build image "(migrate|worker)": Job "pharos-build\/build-/);
    expect(await snapshot()).toEqual(before);
    await box.repo.git('revert', '--no-edit', 'HEAD');
  });

  it('is refused (exit 3) while an unexpired lease holds the target, and removes it once expired', async () => {
    const lease = (expires: string) =>
      JSON.stringify({
        schema: 1,
        holder: { checkout: '/home/bo/platform', workstation: 'bo-desk' },
        applications: ['pharos'],
        commit: 'a'.repeat(40),
        acquired: '2026-01-01T00:00:00Z',
        expires,
        state: 'held',
      });
    const setLease = async (expires: string) => {
      const cm = await box.kube.get('ConfigMap', 'argocd', 'pharos-platform-ownership');
      await box.kube.replace('ConfigMap', 'argocd', {
        ...cm!,
        data: { ...(cm?.['data'] as Record<string, string>), lease: lease(expires) },
      });
    };
    await setLease('2999-01-01T00:00:00Z');
    const before = await snapshot();
    const refused = await reconcile();
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('lease of bo-desk:/home/bo/platform');
    expect(await snapshot()).toEqual(before);
    await setLease('2020-01-01T00:00:00Z');
    // The expired holder's local container, labelled as takeover's Docker runtime labels it, on this Docker engine.
    const id = leaseId(JSON.parse(lease('2020-01-01T00:00:00Z')) as LeaseRecord);
    const started = await exec('docker', [
      'run',
      '--detach',
      '--label',
      `pharos.dev/takeover-lease=${id}`,
      '--label',
      'pharos.dev/takeover-image=api',
      await ensureBaseImage(),
      'sleep',
      '600',
    ]);
    expect(started.code, started.stderr).toBe(0);
    const container = started.stdout.toString('utf8').trim();
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect((await box.ownershipData())?.['lease']).toBeUndefined();
    expect(run.stderr).toContain(`cleanup: stopped api (container ${container.slice(0, 12)})`);
    const left = await exec('docker', ['ps', '--all', '--quiet', '--filter', `label=pharos.dev/takeover-lease=${id}`]);
    expect(left.stdout.toString('utf8').trim()).toBe('');
    // The holder's next command reads who cleaned its lease and what went.
    const note = JSON.parse((await box.ownershipData())?.['cleaned'] ?? '{}') as { by?: string; done?: string[] };
    expect(note.by).toBe('a delivery');
    expect(note.done).toContain(`stopped api (container ${container.slice(0, 12)})`);
  });

  it('ends an operation still running for a superseded revision, then syncs and waits for the commit', async () => {
    const old = JSON.parse((await box.ownershipData())?.['revision'] ?? '""') as string;
    const commit = await box.repo.commit('docs only', { 'docs/overview.md': '# Overview, again\n' });
    const lines: string[] = [];
    const outcome = await deliver({
      profile: box.profile,
      kube: box.kube,
      checkout: box.repo.dir,
      log: (line) => lines.push(line),
      progress: () => {},
      afterStep: async (step) => {
        if (step !== 'root-inputs') return;
        // Argo CD is busy with a sync of the previous revision when the delivery reaches its sync step.
        await box.argocd.simulator.stop();
        const operation = { sync: { revision: old }, initiatedBy: { username: 'someone' } };
        await box.kube.mergePatch('Application', 'argocd', 'pharos-root', {
          status: {
            operationState: {
              operation,
              phase: 'Running',
              message: 'Sync in progress',
              startedAt: new Date().toISOString(),
            },
          },
        });
        setTimeout(() => box.argocd.simulator.start(100), 500);
      },
    });
    expect(outcome.commit).toBe(commit);
    expect(
      lines.some((line) =>
        line.includes(`terminating the operation of pharos-root for superseded revision ${old.slice(0, 12)}`),
      ),
    ).toBe(true);
    expect(
      box.argocd.simulator.events.some((e) => e.application === 'pharos-root' && e.message === 'Operation terminated'),
    ).toBe(true);
    const root = await box.kube.get('Application', 'argocd', 'pharos-root');
    expect((root?.['status'] as any).sync).toMatchObject({ status: 'Synced', revision: commit });
  });

  it('a sync that times out still is a delivery: ConfigMap, root inputs and receipt all name the commit, the delivery record is cleared', async () => {
    const commit = await box.repo.commit('docs for a slow Argo CD', { 'docs/overview.md': '# Overview, slow\n' });
    const profile = { ...box.profile, delivery: { ...box.profile.delivery, syncTimeout: 1500 } };
    const run = deliver({
      profile,
      kube: box.kube,
      checkout: box.repo.dir,
      log: () => {},
      progress: () => {},
      afterStep: async (step) => {
        // Argo CD stops reconciling once the root has its inputs: the wait for Synced and Healthy cannot end.
        if (step === 'root-inputs') await box.argocd.simulator.stop();
      },
    });
    try {
      await expect(run).rejects.toMatchObject({
        code: 'sync-timeout',
        message: expect.stringMatching(
          /^Delivered [0-9a-f]{12} .* but Argo CD did not report it Synced and Healthy at it within 2 s/,
        ),
      });
    } finally {
      box.argocd.simulator.start(100);
    }
    const data = await box.ownershipData();
    expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
    expect(data?.['delivery']).toBeUndefined();
    expect((await box.rootSource()) as { targetRevision: string }).toMatchObject({ targetRevision: commit });
    const receipt = await readReceipt(receiptFile());
    expect(receipt?.commit).toBe(commit);
    expect(Object.fromEntries(Object.entries(receipt?.images ?? {}).map(([k, v]) => [k, v.reference]))).toEqual(
      await images(),
    );
    // takeover plans against this receipt; a rerun finds everything recorded and only waits for the sync.
    const again = await reconcile();
    expect(again.code, again.stderr).toBe(0);
    expect(built(again.json)).toEqual([]);
  });
});
