import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { exec } from '../../scripts/lib/ports/exec.ts';
import type { KubeObject } from '../../scripts/lib/ports/kube-kinds.ts';
import { readReceipt } from '../../scripts/lib/target/receipt.ts';
import { ensureDatabaseAdminBase } from '../support/database-admin-base.ts';
import { pullable } from '../support/devbox/argocd.ts';
import { TOOLKIT_PLATFORM } from '../support/devbox/platform-repo.ts';
import { PHAROS_WAVE_EVENTS, pharosHooks } from '../support/devbox/pharos-hooks.ts';
import type { PharosHooks } from '../support/devbox/pharos-hooks.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';
import { startPostgres } from '../support/postgres-server.ts';
import type { PostgresServer } from '../support/postgres-server.ts';
import { NODE, PROJECT_ROOT } from '../support/run-script.ts';

// `make reconcile` brings pharos up on the test dev box (docs/pharos.md): the platform repository is this repository's
// delivery content, bootstrapped as the Ansible bootstrap does (gitops/manifests/bootstrap's AppProjects, then
// gitops/root/application.yaml). The real `scripts/devbox.ts reconcile` builds the database-admin image in the BuildKit
// simulator (real Docker Engine, real local registry), pins it by digest in the root's inputs, and the Argo CD
// simulator syncs pharos-root, then pharos in waves; the hook pods run the pinned image with Docker against the
// Kubernetes API test server and a real PostgreSQL 15.
const NS = 'pharos';
// What the nodes pull from upstream registries: PostgreSQL's image and the platform's own workloads, which this
// repository does not build (its catalogue owns only pharos/database-admin).
const UPSTREAM = ['docker.io/library/postgres:15-alpine', 'pharos/api', 'pharos/worker'];

let box: TestDevbox;
let postgres: PostgresServer;
let hooks: PharosHooks;
let scratch: string;
const outputs: string[] = [];

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: { commit: string; plan: { image: string; build: boolean }[] } | undefined;
  readonly seconds: number;
}

/** `make reconcile TARGET=<target>`, as the Makefile runs it. */
async function reconcile(): Promise<Run> {
  const args = [
    join(PROJECT_ROOT, 'scripts/devbox.ts'),
    'reconcile',
    '--target',
    box.target,
    '--targets',
    box.targetsDir,
    '--repo',
    box.repo.dir,
    '--json',
  ];
  const started = Date.now();
  const result = await exec(NODE, args, { timeoutMs: 300_000 });
  const stdout = result.stdout.toString('utf8');
  outputs.push(stdout, result.stderr);
  let json: Run['json'];
  try {
    json = JSON.parse(stdout) as Run['json'];
  } catch {
    json = undefined;
  }
  return { code: result.code, stdout, stderr: result.stderr, json, seconds: (Date.now() - started) / 1000 };
}

const built = (run: Run) => (run.json?.plan ?? []).filter((p) => p.build).map((p) => p.image);
const recorded = async () => JSON.parse((await box.ownershipData())?.['images'] ?? '{}') as Record<string, string>;
const application = async (name: string) => (await box.kube.get('Application', 'argocd', name)) as KubeObject;
const secretValue = async (name: string, key: string) => {
  const data = (await box.kube.get('Secret', NS, name))?.['data'] as Record<string, string> | undefined;
  return data?.[key] === undefined ? undefined : Buffer.from(data[key] as string, 'base64').toString('utf8');
};
const jobImage = async (name: string) =>
  (
    (await box.kube.get('Job', NS, name))?.['spec'] as
      | { template: { spec: { containers: { image: string }[] } } }
      | undefined
  )?.template.spec.containers[0]?.image;
const secretVersions = async () =>
  Object.fromEntries(
    await Promise.all(
      ['pharos-generated', 'api-credentials', 'worker-credentials', 'metallo-credentials', 'postgres-credentials'].map(
        async (n) => [n, (await box.kube.get('Secret', NS, n))?.metadata.resourceVersion] as const,
      ),
    ),
  );

/** The pharos events that tell the sync order: each wave applied, each hook created and finished. */
const waveEvents = (from = 0) =>
  box.argocd.simulator.events
    .slice(from)
    .filter((e) => e.application === 'pharos' && /^Sync wave|^hook/.test(e.message))
    .map((e) => e.message);

async function migrations(db: string, password: string | undefined): Promise<string[]> {
  const client = new pg.Client({ host: postgres.host, port: postgres.port, user: db, password, database: db });
  await client.connect();
  try {
    return (
      await client.query<{ version: string }>('SELECT version FROM pharos_schema_migrations ORDER BY version')
    ).rows.map((r) => r.version);
  } finally {
    await client.end();
  }
}

let first: Run;

beforeAll(async () => {
  await ensureDatabaseAdminBase();
  postgres = await startPostgres();
  scratch = await mkdtemp(join(tmpdir(), '15b-pharos-pods-'));
  box = await startTestDevbox({
    platform: TOOLKIT_PLATFORM,
    bootstrap: 'platform',
    upstreamImages: UPSTREAM,
    hooks: ({ server, kube, registry }) => {
      hooks = pharosHooks({
        server,
        kube,
        postgres,
        scratch,
        runtime: { kind: 'image', pullable: (image) => pullable(registry, image) },
      });
      return hooks.runHook;
    },
  });
  first = await reconcile();
}, 600_000);

afterAll(async () => {
  // The digests the hook pods pulled from this run's registry; the build's layers stay as the next run's cache.
  for (const image of new Set((hooks?.runs ?? []).filter((r) => r.status >= 0).map((r) => r.image)))
    await exec('docker', ['rmi', '--no-prune', image]);
  await box?.stop();
  await postgres?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('make reconcile brings pharos up on the test dev box', () => {
  it('exits 0 having built the database-admin image, recorded by digest in the receipt', async () => {
    expect(
      first.code,
      `${first.stderr}\n${box.argocd.simulator.events.map((e) => `${e.application}: ${e.message}`).join('\n')}`,
    ).toBe(0);
    expect(built(first)).toEqual(['database-admin']);
    const images = await recorded();
    const reference = images['database-admin'] ?? '';
    expect(reference).toMatch(
      new RegExp(`^${box.registry.host.replace(/[.]/g, '\\.')}/database-admin@sha256:[0-9a-f]{64}$`),
    );
    expect(await pullable(box.registry, reference)).toBe(true);
    const receipt = await readReceipt(join(box.repo.dir, '.local/metallo', box.target, 'receipt.json'));
    expect(receipt?.commit).toBe(await box.repo.git('rev-parse', 'HEAD'));
    expect(receipt?.images['database-admin']?.reference).toBe(reference);
  });

  it('the root hands the digest to pharos, whose hook Jobs ran exactly that image', async () => {
    const reference = (await recorded())['database-admin'];
    const source = (await application('pharos'))['spec'] as {
      source: { path: string; kustomize?: { images?: string[] } };
    };
    expect(source.source.path).toBe('gitops/manifests/pharos/overlays/devbox');
    expect(source.source.kustomize?.images).toEqual([`pharos/database-admin=${reference}`]);
    expect(await jobImage('pharos-credentials')).toBe(reference);
    expect(await jobImage('pharos-database-provision')).toBe(reference);
    expect(hooks.runs.map((r) => [r.job, r.image, r.status])).toEqual([
      ['pharos-credentials', reference, 0],
      ['pharos-database-provision', reference, 0],
    ]);
  });

  it('pharos-root and pharos end Synced and Healthy at the delivered commit', async () => {
    const head = await box.repo.git('rev-parse', 'HEAD');
    for (const name of ['pharos-root', 'pharos']) {
      const status = (await application(name))['status'] as {
        sync: { status: string; revision: string };
        health: { status: string };
      };
      expect([name, status.sync.status, status.sync.revision, status.health.status]).toEqual([
        name,
        'Synced',
        head,
        'Healthy',
      ]);
    }
  });

  it('Argo CD synced pharos in the wave order of the document: policies and account, credentials, PostgreSQL, databases, workloads', () => {
    expect(waveEvents()).toEqual(PHAROS_WAVE_EVENTS);
  });

  it("the workloads' credentials Secrets log in to their provisioned databases, with the migrations applied", async () => {
    expect(await migrations('api', await secretValue('api-credentials', 'API_DATABASE_PASSWORD'))).toEqual([
      '0001_accounts.sql',
      '0002_sessions.sql',
    ]);
    expect(await migrations('jobs', await secretValue('worker-credentials', 'JOBS_DATABASE_PASSWORD'))).toEqual([
      '0001_queue.sql',
    ]);
    // Only PostgreSQL and the provision hook receive the administrator's password.
    expect(await secretValue('api-credentials', 'POSTGRES_PASSWORD')).toBeUndefined();
    expect(await secretValue('worker-credentials', 'POSTGRES_PASSWORD')).toBeUndefined();
  });

  it("neither reconcile's output nor the hooks' prints a secret value", async () => {
    const values: string[] = [];
    for (const name of [
      'pharos-generated',
      'api-credentials',
      'worker-credentials',
      'metallo-credentials',
      'postgres-credentials',
    ]) {
      const data = ((await box.kube.get('Secret', NS, name))?.['data'] ?? {}) as Record<string, string>;
      values.push(...Object.values(data).map((v) => Buffer.from(v, 'base64').toString('utf8')));
    }
    expect(values.length).toBeGreaterThanOrEqual(8);
    const printed = [...outputs, ...hooks.runs.flatMap((r) => [r.stdout, r.stderr])].join('\n');
    expect(printed).toContain('credentials: secret=metallo-credentials');
    for (const value of values) expect(printed).not.toContain(value);
  });

  it('a second make reconcile with no change builds nothing, runs no hook and changes no Secret', async () => {
    const before = {
      images: await recorded(),
      builds: box.buildkit.builds.length,
      runs: hooks.runs.length,
      secrets: await secretVersions(),
    };
    const again = await reconcile();
    expect(again.code, again.stderr).toBe(0);
    expect(built(again)).toEqual([]);
    expect({
      images: await recorded(),
      builds: box.buildkit.builds.length,
      runs: hooks.runs.length,
      secrets: await secretVersions(),
    }).toEqual(before);
  });

  it('a commit that leaves the image alone builds nothing: Argo CD moves pharos to it without a sync, so no hook runs', async () => {
    const before = {
      images: await recorded(),
      builds: box.buildkit.builds.length,
      runs: hooks.runs.length,
      secrets: await secretVersions(),
    };
    const commit = await box.repo.commit('a note for operators', { 'NOTES.md': 'pharos on a dev box\n' });
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(built(run)).toEqual([]);
    const status = (await application('pharos'))['status'] as {
      sync: { status: string; revision: string };
      health: { status: string };
    };
    expect([status.sync.status, status.sync.revision, status.health.status]).toEqual(['Synced', commit, 'Healthy']);
    expect({
      images: await recorded(),
      builds: box.buildkit.builds.length,
      runs: hooks.runs.length,
      secrets: await secretVersions(),
    }).toEqual(before);
  });

  it('a new migration rebuilds the image and reconcile syncs pharos: the hooks run the new digest, which applies only that migration', async () => {
    const old = (await recorded())['database-admin'];
    const secrets = await secretVersions();
    await box.repo.commit('api: audit table', {
      'devops/migrations/api/0003_audit.sql':
        'CREATE TABLE audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());\n',
    });
    const runs = hooks.runs.length;
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(built(run)).toEqual(['database-admin']);
    const reference = (await recorded())['database-admin'];
    expect(reference).not.toBe(old);
    const rerun = hooks.runs.slice(runs);
    expect(rerun.map((r) => [r.job, r.image, r.status])).toEqual([
      ['pharos-credentials', reference, 0],
      ['pharos-database-provision', reference, 0],
    ]);
    expect(rerun[0]?.stderr).toContain('credentials: namespace=pharos nothing to do');
    expect(rerun[1]?.stderr).toContain(
      'provision: context=api role=present database=present password=ok migrations applied=1 already=2',
    );
    expect(rerun[1]?.stderr).toContain(
      'provision: context=jobs role=present database=present password=ok migrations applied=0 already=1',
    );
    expect(await secretVersions()).toEqual(secrets);
    expect(await migrations('api', await secretValue('api-credentials', 'API_DATABASE_PASSWORD'))).toEqual([
      '0001_accounts.sql',
      '0002_sessions.sql',
      '0003_audit.sql',
    ]);
  });

  it("a migration that fails fails make reconcile at once with the hook and PostgreSQL's reason; the workloads stay as they were", async () => {
    const api = await box.kube.get('Deployment', NS, 'api');
    await box.repo.commit('api: a broken migration', {
      'devops/migrations/api/0004_broken.sql': 'ALTER TABLE no_such_table ADD COLUMN x int;\n',
    });
    const run = await reconcile();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /Delivered [0-9a-f]{12} \(the ownership ConfigMap, the root inputs and the receipt name it\) but Argo CD's sync of "pharos" failed/,
    );
    expect(run.stderr).toContain('hook Job/pharos-database-provision failed');
    expect(run.stderr).toContain(
      'Cannot apply migration "/opt/pharos/devops/migrations/api/0004_broken.sql" of context "api"',
    );
    expect(run.stderr).toContain('relation "no_such_table" does not exist (SQLSTATE 42P01)');
    expect(run.seconds).toBeLessThan(60); // the profile's sync timeout: the failure is reported, not waited out
    expect(hooks.runs.at(-1)?.stderr).toContain('Cannot apply migration');
    expect(await migrations('api', await secretValue('api-credentials', 'API_DATABASE_PASSWORD'))).toEqual([
      '0001_accounts.sql',
      '0002_sessions.sql',
      '0003_audit.sql',
    ]);
    expect((await box.kube.get('Deployment', NS, 'api'))?.metadata.resourceVersion).toBe(api?.metadata.resourceVersion);
    expect((await box.ownershipData())?.['delivery']).toBeUndefined();
  });

  it('a build that fails changes nothing Argo CD can see: no record, no root input, the devbox branch stays, no hook runs', async () => {
    const branch = () => box.repo.git('--git-dir', box.repo.bare, 'rev-parse', 'refs/heads/devbox');
    const before = {
      branch: await branch(),
      root: await box.rootSource(),
      images: await recorded(),
      runs: hooks.runs.length,
    };
    await box.repo.commit('database-admin: a broken build', {
      'docker/database-admin/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/database-admin-base:local\nFROM ${BASE}\nRUN exit 3\n',
    });
    const run = await reconcile();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot build image "database-admin"');
    expect({
      branch: await branch(),
      root: await box.rootSource(),
      images: await recorded(),
      runs: hooks.runs.length,
    }).toEqual(before);
  });
});
