// The Helm simulator against the Kubernetes API test server and the real local registry: the release history it keeps
// is Helm's (helm/helm pkg/action upgrade.go, rollback.go), so the host's chart steps are tested on Helm's semantics.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { chartFilesFromDir, packageChart } from '../../scripts/lib/host/chart/package-chart.ts';
import { pushChart } from '../../scripts/lib/host/chart/oci-chart.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { startLocalRegistry } from '../support/local-registry.ts';
import type { LocalRegistry } from '../support/local-registry.ts';
import { startWorkloadControllers } from '../support/helm-simulator/workload-controllers.ts';
import type { WorkloadControllers } from '../support/helm-simulator/workload-controllers.ts';
import { EXAMPLE_CHART, HELM_SIMULATOR } from '../support/helm-simulator/paths.ts';
import { KubeClient } from '../support/helm-simulator/kube-client.ts';

const NS = 'hephaestus';
const pin = (c: string) => `127.0.0.1:1/pharos/x@sha256:${c.repeat(64)}`;
let server: KubeApiServer;
let registry: LocalRegistry;
let controllers: WorkloadControllers;
let dir: string;
let env: NodeJS.ProcessEnv;

async function helm(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await exec(HELM_SIMULATOR, args, { env, timeoutMs: 60_000 });
  return { code: r.code, out: r.stdout.toString('utf8'), err: r.stderr };
}

async function values(name: string, images: { api: string; worker: string; migrate: string }): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    `images:\n  HEPHAESTUS_IMAGE_API: "${images.api}"\n  HEPHAESTUS_IMAGE_WORKER: "${images.worker}"\n  HEPHAESTUS_IMAGE_MIGRATE: "${images.migrate}"\nrelease:\n  name: ${name}\n  commit: c\n`,
  );
  return file;
}

const history = async (release: string) =>
  JSON.parse((await helm('history', release, '--namespace', NS, '-o', 'json')).out) as {
    revision: number;
    status: string;
    description: string;
  }[];
const statuses = async (release: string) => (await history(release)).map((r) => `${r.revision}:${r.status}`);
const upgrade = (release: string, file: string, ...extra: string[]) =>
  helm(
    'upgrade',
    '--install',
    release,
    EXAMPLE_CHART,
    '--namespace',
    NS,
    '--values',
    file,
    '--rollback-on-failure',
    '--wait=watcher',
    '--wait-for-jobs',
    '--timeout',
    '20s',
    ...extra,
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'helm-sim-'));
  server = await startKubeApiServer({ namespaces: [NS] });
  controllers = startWorkloadControllers(server);
  registry = await startLocalRegistry();
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
});

afterAll(async () => {
  controllers?.stop();
  await server?.close();
  await registry?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the Helm simulator', () => {
  it('pulls a chart by digest from the real registry and reports that digest as helm does', async () => {
    const { archive, metadata } = packageChart(await chartFilesFromDir(EXAMPLE_CHART), '1.2.3');
    const reference = await pushChart(registry.host, 'charts/hephaestus', '1.2.3', archive, metadata);
    const r = await helm('pull', reference, '--destination', join(dir, 'pulled'));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Digest: ${reference.split('@')[1]}`);
    expect(await readdir(join(dir, 'pulled'))).toEqual(['hephaestus-1.2.3.tgz']);
    expect(Buffer.compare(await readFile(join(dir, 'pulled', 'hephaestus-1.2.3.tgz')), archive)).toBe(0);
    const wrong = await helm(
      'pull',
      reference.replace(/@sha256:.{64}/, `@sha256:${'0'.repeat(64)}`),
      '--destination',
      join(dir, 'none'),
    );
    expect(wrong.code).toBe(1);
  });

  it('installs, upgrades and keeps the history as Secrets with Helm labels; one migration Job per revision', async () => {
    const first = await upgrade('a', await values('v1', { api: pin('1'), worker: pin('2'), migrate: pin('3') }));
    expect(first.code, first.err).toBe(0);
    const second = await upgrade('a', await values('v2', { api: pin('4'), worker: pin('5'), migrate: pin('6') }));
    expect(second.code, second.err).toBe(0);
    expect(await statuses('a')).toEqual(['1:superseded', '2:deployed']);
    const secrets = server.store
      .entries()
      .filter(
        (e) =>
          e.type.kind === 'Secret' &&
          e.namespace === NS &&
          String(e.object.metadata['name']).startsWith('sh.helm.release.v1.a.'),
      );
    expect(
      secrets.map((s) => [
        s.object.metadata['name'],
        (s.object.metadata['labels'] as Record<string, string>)['status'],
        s.object['type'],
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['sh.helm.release.v1.a.v1', 'superseded', 'helm.sh/release.v1'],
        ['sh.helm.release.v1.a.v2', 'deployed', 'helm.sh/release.v1'],
      ]),
    );
    const jobs = server.store
      .entries()
      .filter((e) => e.type.kind === 'Job' && e.namespace === NS)
      .map((e) => e.object.metadata['name']);
    expect(jobs).toContain('a-migration-2');
    const server1 = server.store.get(
      server.store.entries().find((e) => e.type.kind === 'Deployment')!.type,
      NS,
      'a-server',
    );
    expect(JSON.stringify(server1)).toContain(pin('4'));
    const status = JSON.parse((await helm('status', 'a', '--namespace', NS, '-o', 'json')).out) as Record<
      string,
      unknown
    >;
    expect(Object.keys(status)).toEqual(['name', 'info', 'config', 'manifest', 'version', 'namespace', 'apply_method']);
    expect(status).toMatchObject({ info: { status: 'deployed' }, config: { release: { name: 'v2' } }, version: 2 });
    const metadata = JSON.parse((await helm('get', 'metadata', 'a', '--namespace', NS, '-o', 'json')).out) as Record<
      string,
      unknown
    >;
    expect(metadata).toMatchObject({ name: 'a', chart: 'hephaestus', revision: 2, status: 'deployed' });
    expect(metadata['labels']).toMatchObject({ name: 'a', owner: 'helm', status: 'deployed', version: '2' });
  });

  it('a failed migration Job with --rollback-on-failure leaves a failed revision and rolls back to the last deployed one', async () => {
    controllers.faults.failJobImages.add(pin('9'));
    const r = await upgrade('a', await values('v3', { api: pin('7'), worker: pin('8'), migrate: pin('9') }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('has been rolled back due to rollback-on-failure');
    expect(r.err).toContain(
      `resource Job/${NS}/a-migration-3 not ready. status: Failed, message: Job Failed. failed: 1/1`,
    );
    expect(await statuses('a')).toEqual(['1:superseded', '2:superseded', '3:failed', '4:deployed']);
    expect((await history('a')).at(-1)?.description).toBe('Rollback to 2');
  });

  it('a process killed mid-upgrade leaves pending-upgrade: upgrades are refused until a rollback', async () => {
    const faults = join(dir, 'faults.json');
    await writeFile(faults, JSON.stringify({ kill: 'upgrade' }));
    const killed = await exec(
      HELM_SIMULATOR,
      [
        'upgrade',
        '--install',
        'a',
        EXAMPLE_CHART,
        '--namespace',
        NS,
        '--values',
        await values('v5', { api: pin('a'), worker: pin('b'), migrate: pin('c') }),
      ],
      { env: { ...env, HELM_SIMULATOR_FAULTS: faults } },
    );
    expect(killed.code).not.toBe(0);
    expect(await statuses('a')).toEqual([
      '1:superseded',
      '2:superseded',
      '3:failed',
      '4:deployed',
      '5:pending-upgrade',
    ]);
    const refused = await upgrade('a', await values('v6', { api: pin('a'), worker: pin('b'), migrate: pin('c') }));
    expect(refused.err).toContain('another operation (install/upgrade/rollback) is in progress');
    expect((await helm('rollback', 'a', '4', '--namespace', NS, '--wait')).code).toBe(0);
    expect(await statuses('a')).toEqual([
      '1:superseded',
      '2:superseded',
      '3:failed',
      '4:superseded',
      '5:pending-upgrade',
      '6:deployed',
    ]);
    expect((await upgrade('a', await values('v7', { api: pin('a'), worker: pin('b'), migrate: pin('c') }))).code).toBe(
      0,
    );
  });

  it('a Pod that never becomes ready fails the wait at the timeout; uninstall removes the release and its objects', async () => {
    controllers.faults.neverReadyImages.add(pin('e'));
    const r = await helm(
      'upgrade',
      '--install',
      'b',
      EXAMPLE_CHART,
      '--namespace',
      NS,
      '--values',
      await values('b1', { api: pin('e'), worker: pin('f'), migrate: pin('d') }),
      '--wait=watcher',
      '--wait-for-jobs',
      '--timeout',
      '1s',
    );
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `Error: INSTALLATION FAILED: resource Deployment/${NS}/b-server not ready. status: InProgress, message: Available: 0/1\ncontext deadline exceeded\n`,
    );
    expect(await statuses('b')).toEqual(['1:failed']);
    expect((await helm('uninstall', 'b', '--namespace', NS)).code).toBe(0);
    expect((await helm('history', 'b', '--namespace', NS)).err).toContain('release: not found');
    expect(
      server.store
        .entries()
        .some(
          (e) =>
            e.namespace === NS &&
            String(e.object.metadata['name']).startsWith('b-') &&
            e.object.metadata['deletionTimestamp'] === undefined,
        ),
    ).toBe(false);
  });

  it('--history-max prunes the least recent revisions and never the last deployed one', async () => {
    expect((await upgrade('c', await values('c1', { api: pin('1'), worker: pin('2'), migrate: pin('3') }))).code).toBe(
      0,
    );
    controllers.faults.deadlineImages.add(pin('d'));
    const bad = await values('c2', { api: pin('d'), worker: pin('2'), migrate: pin('3') });
    for (let i = 0; i < 4; i++) {
      const r = await helm(
        'upgrade',
        'c',
        EXAMPLE_CHART,
        '--namespace',
        NS,
        '--values',
        bad,
        '--wait=watcher',
        '--timeout',
        '60s',
        '--history-max',
        '3',
      );
      // kstatus: a Deployment past its progress deadline is Failed at once, not at the timeout.
      expect(r.err).toBe(
        `Error: UPGRADE FAILED: resource Deployment/${NS}/c-server not ready. status: Failed, message: Progress deadline exceeded\n`,
      );
    }
    expect(await statuses('c')).toEqual(['1:deployed', '4:failed', '5:failed']);
  });

  it('a failed rollback marks its revision failed; the deployed one stays', async () => {
    const r = await helm('rollback', 'c', '5', '--namespace', NS, '--wait', '--timeout', '60s');
    expect(r.err).toBe(
      `Error: release c failed: resource Deployment/${NS}/c-server not ready. status: Failed, message: Progress deadline exceeded\n`,
    );
    const last = (await history('c')).at(-1) as {
      revision: number;
      status: string;
      description: string;
      rollback_revision: number;
    };
    expect(last).toMatchObject({ revision: 6, status: 'failed', rollback_revision: 5 });
    expect(last.description).toBe(
      `Release "c" failed: resource Deployment/${NS}/c-server not ready. status: Failed, message: Progress deadline exceeded`,
    );
    expect(await statuses('c')).toEqual(['1:deployed', '4:failed', '5:failed', '6:failed']);
  });

  it('refuses an install over an object this release does not own, recording nothing', async () => {
    await new KubeClient(join(dir, 'kubeconfig')).apply(NS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'o-server' },
      spec: {
        selector: { matchLabels: { app: 'o' } },
        template: { metadata: { labels: { app: 'o' } }, spec: { containers: [{ name: 'o', image: 'o' }] } },
      },
    });
    const r = await upgrade('o', await values('o1', { api: pin('1'), worker: pin('2'), migrate: pin('3') }));
    expect(r.err).toBe(
      `Error: INSTALLATION FAILED: unable to continue with install: Deployment "o-server" in namespace "${NS}" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "o"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "${NS}"\n`,
    );
    expect((await helm('history', 'o', '--namespace', NS)).err).toBe('Error: release: not found\n');
  });

  it('refuses a --wait value Helm 4 does not know, before touching the release', async () => {
    const r = await helm('upgrade', '--install', 'e', EXAMPLE_CHART, '--namespace', NS, '--wait=forever');
    expect(r.err).toBe(
      'Error: invalid argument "forever" for "--wait" flag: invalid wait input "forever". Valid inputs are watcher, hookOnly, and legacy\n',
    );
    expect((await helm('history', 'e', '--namespace', NS)).code).toBe(1);
  });

  it('two upgrades at once: one records the next revision, the other is refused by the revision already there', async () => {
    const file = await values('d1', { api: pin('1'), worker: pin('2'), migrate: pin('3') });
    expect((await upgrade('d', file)).code).toBe(0);
    const faults = join(dir, 'race.json');
    await writeFile(faults, JSON.stringify({ readDelayMs: 1500 }));
    const raced = await Promise.all(
      [1, 2].map(() =>
        exec(HELM_SIMULATOR, ['upgrade', 'd', EXAMPLE_CHART, '--namespace', NS, '--values', file], {
          env: { ...env, HELM_SIMULATOR_FAULTS: faults },
          timeoutMs: 60_000,
        }),
      ),
    );
    expect(raced.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(raced.find((r) => r.code === 1)?.stderr).toBe('Error: UPGRADE FAILED: release: already exists\n');
    expect(await statuses('d')).toEqual(['1:superseded', '2:deployed']);
  });

  it('an uninstall killed midway leaves uninstalling: Helm upgrades nothing over it; uninstalling again ends it', async () => {
    const faults = join(dir, 'uninstall.json');
    await writeFile(faults, JSON.stringify({ kill: 'uninstall' }));
    const killed = await exec(HELM_SIMULATOR, ['uninstall', 'd', '--namespace', NS], {
      env: { ...env, HELM_SIMULATOR_FAULTS: faults },
    });
    expect(killed.code).not.toBe(0);
    expect(await statuses('d')).toEqual(['1:superseded', '2:uninstalling']);
    expect((await history('d')).at(-1)?.description).toBe('Deletion in progress (or silently failed)');
    const refused = await upgrade('d', await values('d2', { api: pin('1'), worker: pin('2'), migrate: pin('3') }));
    expect(refused.err).toBe('Error: UPGRADE FAILED: "d" has no deployed releases\n');
    expect((await helm('uninstall', 'd', '--namespace', NS)).out).toBe('release "d" uninstalled\n');
    expect((await helm('status', 'd', '--namespace', NS)).err).toBe('Error: release: not found\n');
  });
});
