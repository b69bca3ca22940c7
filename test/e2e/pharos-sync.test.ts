import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import { gitEnv, manualClock } from '../../scripts/lib/ports/index.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../scripts/lib/ports/kube.ts';
import type { KubeKind, KubeObject } from '../../scripts/lib/ports/kube-kinds.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { ArgoCdSimulator } from '../support/argocd-simulator/index.ts';
import { kustomize } from '../support/devbox/kustomize.ts';
import { PHAROS_WAVE_EVENTS, pharosHooks } from '../support/devbox/pharos-hooks.ts';
import type { PharosHooks } from '../support/devbox/pharos-hooks.ts';
import { startPostgres } from '../support/postgres-server.ts';
import type { PostgresServer } from '../support/postgres-server.ts';
import { PROJECT_ROOT } from '../support/run-script.ts';

// The pharos Application on a simulated dev box: the Argo CD simulator syncs gitops/apps/overlays/devbox from a Git
// repository holding this checkout's gitops/ and devops/, in sync waves; its hooks run the real scripts, as their
// Job's container args say, against the Kubernetes API test server and a real PostgreSQL 15.
const REPO_URL = 'git://git.pharos-git.svc.cluster.local/platform.git';
const NS = 'pharos';

let server: KubeApiServer;
let kube: Kube;
let postgres: PostgresServer;
let top: string;
let repo: string;
let sim: ArgoCdSimulator;
const clock = manualClock(new Date('2026-11-30T12:00:00Z'));
let hooks: PharosHooks;

async function git(...args: string[]): Promise<string> {
  return (await execOk(exec, 'git', ['-C', repo, ...args], { env: gitEnv({}) })).stdout.toString().trim();
}

async function commit(message: string): Promise<void> {
  await git('add', '-A');
  await git('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', message);
  await git('branch', '-f', 'devbox', 'HEAD');
}

const exists = async (kind: KubeKind, name: string) => (await kube.get(kind, NS, name)) !== undefined;
const secretValue = async (name: string, key: string) => {
  const data = (await kube.get('Secret', NS, name))?.['data'] as Record<string, string> | undefined;
  return data?.[key] === undefined ? undefined : Buffer.from(data[key] as string, 'base64').toString('utf8');
};

// What each hook's pod finds when it starts: the waves before it applied and ready, the ones after it not yet.
const observe = async () => ({
  'NetworkPolicy/default-deny': await existsAny('NetworkPolicy', 'default-deny'),
  'StatefulSet/postgres ready':
    ((await kube.get('StatefulSet', NS, 'postgres'))?.['status'] as { readyReplicas?: number } | undefined)
      ?.readyReplicas === 1,
  'Secret/postgres-credentials': await exists('Secret', 'postgres-credentials'),
  'Deployment/api': await exists('Deployment', 'api'),
});

/** Kinds the Kube port does not serve, read over HTTP. */
async function existsAny(kind: 'NetworkPolicy', name: string): Promise<boolean> {
  const path = { NetworkPolicy: 'apis/networking.k8s.io/v1/namespaces/pharos/networkpolicies' }[kind];
  return (await fetch(`${server.url}/${path}/${name}`)).status === 200;
}

async function application(): Promise<KubeObject> {
  return (await kube.get('Application', 'argocd', 'pharos')) as KubeObject;
}

async function syncUntilDone(maxTicks = 40): Promise<{ phase: string; message: string }> {
  for (let i = 0; i < maxTicks; i++) {
    await sim.tick();
    clock.advance(1000);
    const op = ((await application())['status'] as { operationState?: { phase: string; message: string } } | undefined)
      ?.operationState;
    if (op !== undefined && op.phase !== 'Running') return op;
  }
  throw new Error(`no sync finished within ${maxTicks} ticks: ${sim.events.map((e) => e.message).join('\n')}`);
}

beforeAll(async () => {
  [server, postgres] = await Promise.all([startKubeApiServer({ namespaces: ['argocd', NS] }), startPostgres()]);
  kube = kubeFromConfig(server.kubeConfig());
  top = await mkdtemp(join(tmpdir(), 'pharos-sync-'));
  repo = join(top, 'platform');
  await mkdir(repo);
  await git('init', '-q', '-b', 'main');
  for (const folder of ['gitops', 'devops', 'scripts'])
    await cp(join(PROJECT_ROOT, folder), join(repo, folder), { recursive: true });
  // The image's node_modules: the scripts import their libraries from it.
  await (await import('node:fs/promises')).symlink(join(PROJECT_ROOT, 'node_modules'), join(repo, 'node_modules'));
  await writeFile(join(repo, '.gitignore'), 'node_modules\n');
  await writeFile(join(repo, 'package.json'), JSON.stringify({ type: 'module' }));
  await commit('platform');
  // The Ansible bootstrap's part: the AppProjects, then the root's Applications.
  for (const doc of await kustomize(join(repo, 'gitops/manifests/bootstrap')))
    if (doc.kind === 'AppProject') await kube.create('AppProject', 'argocd', doc as unknown as KubeObject);
  for (const doc of await kustomize(join(repo, 'gitops/root')))
    await kube.create('Application', 'argocd', doc as unknown as KubeObject);
  // The hook pods run the scripts from the platform checkout (the image's working directory) with this machine's Node.
  hooks = pharosHooks({ server, kube, postgres, scratch: top, runtime: { kind: 'checkout', dir: repo }, observe });
  sim = new ArgoCdSimulator({
    kubeConfig: server.kubeConfig(),
    clock,
    repositories: { [REPO_URL]: repo },
    runHook: hooks.runHook,
  });
});

afterAll(async () => {
  await sim?.close();
  await server?.close();
  await postgres?.close();
  await rm(top, { recursive: true, force: true });
});

describe('the pharos Application synced by the Argo CD simulator', () => {
  let first: { phase: string; message: string };
  beforeAll(async () => {
    first = await syncUntilDone();
  });

  it('syncs in the wave order of the document and runs both hooks once each', () => {
    expect(first.phase, first.message).toBe('Succeeded');
    const order = sim.events
      .filter((e) => e.application === 'pharos')
      .map((e) => e.message)
      .filter((m) => /^Sync wave|^hook/.test(m));
    expect(order).toEqual(PHAROS_WAVE_EVENTS);
    expect(hooks.runs.map((h) => [h.job, h.status])).toEqual([
      ['pharos-credentials', 0],
      ['pharos-database-provision', 0],
    ]);
  });

  it('ends Synced and Healthy once the workloads are up, with the policies exactly as rendered', async () => {
    await sim.settle(10);
    const status = (await application())['status'] as { sync: { status: string }; health: { status: string } };
    expect([status.sync.status, status.health.status]).toEqual(['Synced', 'Healthy']);
    const policy = (await (
      await fetch(
        `${server.url}/apis/networking.k8s.io/v1/namespaces/pharos/networkpolicies/postgres-ingress-provision`,
      )
    ).json()) as { spec: unknown };
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'postgres' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'pharos-database-provision' } } }],
          ports: [{ protocol: 'TCP', port: 5432 }],
        },
      ],
    });
  });

  it('each hook ran after the waves before it and before the ones after it', () => {
    const [credentials, provision] = hooks.runs;
    expect(credentials?.seen).toEqual({
      'NetworkPolicy/default-deny': true,
      'StatefulSet/postgres ready': false,
      'Secret/postgres-credentials': false,
      'Deployment/api': false,
    });
    expect(provision?.seen).toEqual({
      'NetworkPolicy/default-deny': true,
      'StatefulSet/postgres ready': true,
      'Secret/postgres-credentials': true,
      'Deployment/api': false,
    });
  });

  it("the workloads' Secrets log in to the provisioned databases, whose migrations are applied", async () => {
    for (const [owner, key, db, table] of [
      ['api', 'API_DATABASE_PASSWORD', 'api', 'sessions'],
      ['worker', 'JOBS_DATABASE_PASSWORD', 'jobs', 'jobs'],
    ] as const) {
      const client = new pg.Client({
        host: postgres.host,
        port: postgres.port,
        user: db,
        password: await secretValue(`${owner}-credentials`, key),
        database: db,
      });
      await client.connect();
      expect((await client.query('SELECT count(*)::int AS n FROM pharos_schema_migrations')).rows[0].n).toBeGreaterThan(
        0,
      );
      await client.query(`SELECT * FROM ${client.escapeIdentifier(table)} LIMIT 1`);
      await client.end();
    }
    expect(await secretValue('api-credentials', 'POSTGRES_PASSWORD')).toBeUndefined();
  });

  it('the hooks printed no secret value', async () => {
    const values: string[] = [];
    for (const name of [
      'pharos-generated',
      'api-credentials',
      'worker-credentials',
      'metallo-credentials',
      'postgres-credentials',
    ]) {
      const data = ((await kube.get('Secret', NS, name))?.['data'] ?? {}) as Record<string, string>;
      values.push(...Object.values(data).map((v) => Buffer.from(v, 'base64').toString('utf8')));
    }
    expect(values.length).toBeGreaterThanOrEqual(8);
    for (const h of hooks.runs) for (const v of values) expect(`${h.stdout}${h.stderr}`).not.toContain(v);
  });

  it('a second sync re-creates the hooks, which change nothing', async () => {
    const before = (await kube.get('Secret', NS, 'pharos-generated'))?.metadata.resourceVersion;
    const hookUid = (await kube.get('Job', NS, 'pharos-credentials'))?.metadata.uid;
    const listed = ((await application())['status'] as { resources: { kind: string; name: string }[] }).resources.map(
      (r) => `${r.kind}/${r.name}`,
    );
    expect(listed).not.toContain('Job/pharos-credentials'); // hooks are neither compared nor pruned
    expect(listed).toContain('StatefulSet/postgres');
    await sim.requestSync('pharos');
    const op = await syncUntilDone();
    expect(op.phase, op.message).toBe('Succeeded');
    const [credentials, provision] = hooks.runs.slice(2);
    expect(credentials?.stderr).toContain('credentials: namespace=pharos nothing to do');
    expect(provision?.stderr).toContain(
      'provision: context=api role=present database=present password=ok migrations applied=0 already=2',
    );
    expect((await kube.get('Secret', NS, 'pharos-generated'))?.metadata.resourceVersion).toBe(before);
    // BeforeHookCreation: the previous run's Job was deleted and a new one created.
    expect((await kube.get('Job', NS, 'pharos-credentials'))?.metadata.uid).not.toBe(hookUid);
  });

  it('a failing migration fails the sync at wave -1: the workloads of that commit are not applied', async () => {
    await writeFile(
      join(repo, 'devops/migrations/api/0003_broken.sql'),
      'ALTER TABLE no_such_table ADD COLUMN x int;\n',
    );
    const api = join(repo, 'gitops/manifests/pharos/base/api.yaml');
    const { readFile } = await import('node:fs/promises');
    await writeFile(api, (await readFile(api, 'utf8')).replace('replicas: 1', 'replicas: 2'));
    await commit('a broken migration');
    await sim.requestSync('pharos');
    const op = await syncUntilDone();
    expect(op.phase).toBe('Failed');
    expect(op.message).toContain('hook Job/pharos-database-provision failed');
    expect(hooks.runs.at(-1)?.stderr).toContain('error [migration]: Cannot apply migration');
    expect(((await kube.get('Deployment', NS, 'api'))?.['spec'] as { replicas: number }).replicas).toBe(1);
    // Argo CD does not retry a failed revision by itself (without syncPolicy.retry): the hooks do not run again.
    const runs = hooks.runs.length;
    for (let i = 0; i < 3; i++) await sim.tick();
    expect(hooks.runs.length).toBe(runs);
    expect(sim.events.at(-1)?.message).toBe(
      `Skipping auto-sync: failed previous sync attempt to ${await git('rev-parse', 'HEAD')}`,
    );
  });
});
