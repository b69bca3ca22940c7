import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execOk, exec } from '../../scripts/lib/ports/exec.ts';
import { gitEnv, manualClock } from '../../scripts/lib/ports/index.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import type { Kube, KubeObject } from '../../scripts/lib/ports/index.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { ArgoCdSimulator, SyncRefusedError } from '../support/argocd-simulator/index.ts';

const START = new Date('2026-03-10T12:30:00Z');
const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;
const REGISTRY = 'registry.pharos-build.svc.cluster.local:5000';
const REPO_URL = 'git://git.pharos-git.svc.cluster.local/platform.git';

let server: KubeApiServer;
let kube: Kube;
let dir: string;
let repo: string;
let clock: ReturnType<typeof manualClock>;
let sim: ArgoCdSimulator;
let ns = 0;
let appNs: string;

async function git(...args: string[]): Promise<string> {
  return (
    await execOk(exec, 'git', ['-C', repo, ...args], {
      env: gitEnv({ GIT_AUTHOR_DATE: '2026-03-10T12:00:00Z', GIT_COMMITTER_DATE: '2026-03-10T12:00:00Z' }),
    })
  ).stdout
    .toString()
    .trim();
}

async function commit(files: Record<string, string>, message: string): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  await git('add', '-A');
  await git('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: compat-web
        - name: sidecar
          image: busybox:1.36
`;

const webFiles = (replicas = 2) => ({
  'apps/web/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n  - config.yaml\n',
  'apps/web/deployment.yaml': deployment(replicas),
  'apps/web/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  greeting: hello\n',
  'root/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - web.yaml\n',
  'root/web.yaml': `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
spec:
  project: platform
  source: {repoURL: "${REPO_URL}", path: apps/web, targetRevision: HEAD}
  destination: {server: "https://kubernetes.default.svc", namespace: APP_NS}
  syncPolicy: {automated: {selfHeal: true, prune: true}}
`,
});

function application(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name },
    spec: { project: 'platform', destination: { server: 'https://kubernetes.default.svc', namespace: appNs }, ...spec },
  };
}

async function project(windows: unknown[] = [], name = 'platform'): Promise<void> {
  const body = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name },
    spec: {
      sourceRepos: [REPO_URL],
      destinations: [{ server: 'https://kubernetes.default.svc', namespace: '*' }],
      syncWindows: windows,
    },
  };
  const live = await kube.get('AppProject', 'argocd', name);
  if (live)
    await kube.replace('AppProject', 'argocd', {
      ...body,
      metadata: { name, resourceVersion: live.metadata.resourceVersion },
    });
  else await kube.create('AppProject', 'argocd', body);
}

async function app(name: string): Promise<{
  spec: Record<string, unknown>;
  operation?: unknown;
  status: {
    sync: { status: string; revision?: string };
    health: { status: string };
    operationState?: { phase: string; message?: string; syncResult?: { revision: string } };
    conditions?: { type: string; message: string }[];
  };
}> {
  return (await kube.get('Application', 'argocd', name)) as never;
}

async function webDeployment(): Promise<
  | {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
      status?: { availableReplicas?: number };
    }
  | undefined
> {
  return (await kube.get('Deployment', appNs, 'web')) as never;
}

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd'] });
  kube = kubeFromConfig(server.kubeConfig());
  dir = await mkdtemp(join(tmpdir(), 'argocd-sim-'));
});
afterAll(async () => {
  await sim?.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  // One fresh repository and destination namespace per test; Applications in argocd are removed.
  appNs = `apps-${++ns}`;
  server.addNamespace(appNs);
  repo = join(dir, `repo-${ns}`);
  await mkdir(repo);
  await git('init', '-q', '-b', 'main');
  for (const a of await kube.list('Application', 'argocd')) await kube.delete('Application', 'argocd', a.metadata.name);
  await project([]);
  clock = manualClock(START);
  await sim?.close();
  sim = new ArgoCdSimulator({ kubeConfig: server.kubeConfig(), clock, repositories: { [REPO_URL]: repo } });
});

const webApp = (extra: Record<string, unknown> = {}) =>
  application('web', {
    source: {
      repoURL: REPO_URL,
      path: 'apps/web',
      targetRevision: 'HEAD',
      kustomize: { images: [`compat-web=${REGISTRY}/compat-web@${DIGEST_A}`] },
    },
    ...extra,
  });

describe('Argo CD simulator', () => {
  it('syncs a kustomize Application from a real Git repository with its kustomize.images override', async () => {
    const sha = await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp());
    await sim.tick();
    expect((await app('web')).status.sync).toMatchObject({ status: 'OutOfSync', revision: sha });
    expect(await webDeployment()).toBeUndefined();
    await sim.requestSync('web');
    await sim.settle();
    const deployed = await webDeployment();
    expect(deployed?.spec.template.spec.containers.map((c) => c.image)).toEqual([
      `${REGISTRY}/compat-web@${DIGEST_A}`,
      'busybox:1.36',
    ]);
    expect((await kube.get('ConfigMap', appNs, 'web-config'))?.['data']).toEqual({ greeting: 'hello' });
    const state = await app('web');
    expect(state.status.sync).toMatchObject({ status: 'Synced', revision: sha });
    expect(state.status.health.status).toBe('Healthy');
    expect(state.status.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: sha } });
    expect(state.operation).toBeUndefined();
  });

  it('a sync into a destination namespace that does not exist fails, unless the Application sets CreateNamespace=true', async () => {
    await commit(webFiles(), 'web');
    const missing = `${appNs}-new`;
    await kube.create(
      'Application',
      'argocd',
      application('web', {
        source: { repoURL: REPO_URL, path: 'apps/web', targetRevision: 'HEAD' },
        destination: { server: 'https://kubernetes.default.svc', namespace: missing },
      }),
    );
    await sim.requestSync('web');
    await sim.settle();
    expect((await app('web')).status.operationState).toMatchObject({
      phase: 'Failed',
      message: `one or more objects failed to apply, reason: namespaces "${missing}" not found`,
    });
    await kube.mergePatch('Application', 'argocd', 'web', {
      spec: { syncPolicy: { syncOptions: ['CreateNamespace=true'] } },
    });
    await sim.requestSync('web');
    await sim.settle();
    expect((await app('web')).status.operationState?.phase).toBe('Succeeded');
    expect(await kube.get('ConfigMap', missing, 'web-config')).toBeDefined();
  });

  it('reports Progressing until the Deployment has available replicas', async () => {
    await commit(webFiles(), 'web');
    await sim.close();
    sim = new ArgoCdSimulator({
      kubeConfig: server.kubeConfig(),
      clock,
      repositories: { [REPO_URL]: repo },
      workloads: { imageAvailable: (image) => !image.includes(DIGEST_A) },
    });
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: {} } }));
    await sim.settle();
    expect((await app('web')).status).toMatchObject({ sync: { status: 'Synced' }, health: { status: 'Progressing' } });
  });

  it('automated sync follows a new commit on the target branch', async () => {
    await commit(webFiles(2), 'two');
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: {} } }));
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(2);
    const sha = await commit(webFiles(3), 'three');
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(3);
    expect((await app('web')).status.sync).toMatchObject({ status: 'Synced', revision: sha });
    const history = (
      (await app('web')).status as unknown as {
        history: { id: number; revision: string; initiatedBy: { automated: boolean } }[];
      }
    ).history;
    expect(history.map((h) => h.id)).toEqual([0, 1]);
    expect(history[1]).toMatchObject({ revision: sha, initiatedBy: { automated: true } });
  });

  it('self-heal restores a scaled-down Deployment; without selfHeal it stays OutOfSync', async () => {
    await commit(webFiles(2), 'two');
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: { selfHeal: true } } }));
    await sim.settle();
    await kube.mergePatch('Deployment', appNs, 'web', { spec: { replicas: 0 } });
    await sim.tick();
    expect((await webDeployment())?.spec.replicas).toBe(2);
    expect(sim.events.map((e) => e.message)).toContain('Self-healing: live state differs from the last sync');

    await kube.mergePatch('Application', 'argocd', 'web', { spec: { syncPolicy: { automated: { selfHeal: false } } } });
    await sim.settle();
    await kube.mergePatch('Deployment', appNs, 'web', { spec: { replicas: 0 } });
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(0);
    expect((await app('web')).status.sync.status).toBe('OutOfSync');
  });

  it('app of apps: the root passes the commit and each digest to its child through kustomize patches', async () => {
    const files = webFiles();
    files['root/web.yaml'] = files['root/web.yaml'].replace('APP_NS', appNs);
    const sha = await commit(files, 'platform');
    const childPatch = (digest: string) => ({
      target: { group: 'argoproj.io', version: 'v1alpha1', kind: 'Application', name: 'web' },
      patch: JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'web' },
        spec: {
          source: { targetRevision: sha, kustomize: { images: [`compat-web=${REGISTRY}/compat-web@${digest}`] } },
        },
      }),
    });
    await kube.create(
      'Application',
      'argocd',
      application('root', {
        project: 'platform',
        destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
        source: {
          repoURL: REPO_URL,
          path: 'root',
          targetRevision: sha,
          kustomize: { patches: [childPatch(DIGEST_A)] },
        },
      }),
    );
    await sim.requestSync('root');
    await sim.settle();
    const child = (await kube.get('Application', 'argocd', 'web')) as unknown as {
      spec: { source: { targetRevision: string; kustomize: { images: string[] } } };
    };
    expect(child.spec.source.targetRevision).toBe(sha);
    expect(child.spec.source.kustomize.images).toEqual([`compat-web=${REGISTRY}/compat-web@${DIGEST_A}`]);
    expect((await webDeployment())?.spec.template.spec.containers[0]?.image).toBe(`${REGISTRY}/compat-web@${DIGEST_A}`);
    expect((await app('web')).status).toMatchObject({
      sync: { status: 'Synced', revision: sha },
      health: { status: 'Healthy' },
    });

    // A new digest at the same commit: only the root's inputs change; the child follows through the root.
    await kube.mergePatch('Application', 'argocd', 'root', {
      spec: { source: { kustomize: { patches: [childPatch(DIGEST_B)] } } },
    });
    await sim.requestSync('root');
    await sim.settle();
    expect((await webDeployment())?.spec.template.spec.containers[0]?.image).toBe(`${REGISTRY}/compat-web@${DIGEST_B}`);
    expect((await app('root')).status.sync.status).toBe('Synced');
  });

  it('an active deny window stops automated sync and self-heal; they resume by themselves when it ends', async () => {
    await commit(webFiles(2), 'two');
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: { selfHeal: true } } }));
    await sim.settle();
    // The lease window: acquired 12:30 for 60 minutes.
    await project([
      {
        kind: 'deny',
        schedule: '30 12 10 3 *',
        duration: '60m',
        applications: ['web'],
        manualSync: false,
        timeZone: 'UTC',
      },
    ]);
    clock.advance(60_000);
    await kube.mergePatch('Deployment', appNs, 'web', { spec: { replicas: 0 } });
    await commit(webFiles(4), 'four');
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(0);
    expect((await app('web')).status.sync.status).toBe('OutOfSync');
    expect(sim.events.at(-1)?.message).toBe('Sync prevented by sync window');
    clock.set(new Date('2026-03-10T13:29:59Z'));
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(0);
    clock.set(new Date('2026-03-10T13:30:00Z'));
    await sim.settle();
    expect((await webDeployment())?.spec.replicas).toBe(4);
    expect((await app('web')).status.sync.status).toBe('Synced');
  });

  it('a manual sync is refused by a deny window without manualSync and accepted with it', async () => {
    await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp());
    clock.advance(60_000);
    await project([
      { kind: 'deny', schedule: '30 12 * * *', duration: '1h', applications: ['web'], manualSync: false },
    ]);
    await expect(sim.requestSync('web')).rejects.toThrow(
      new SyncRefusedError('Cannot sync application "web": blocked by sync window'),
    );
    expect((await app('web')).operation).toBeUndefined();
    await project([{ kind: 'deny', schedule: '30 12 * * *', duration: '1h', applications: ['web'], manualSync: true }]);
    await sim.requestSync('web');
    await sim.settle();
    expect((await app('web')).status.sync.status).toBe('Synced');
  });

  it('an operation written while a deny window is active stays Running, blocked, and proceeds when the window ends', async () => {
    const sha = await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp());
    await project([{ kind: 'deny', schedule: '0 12 * * *', duration: '1h', applications: ['web'] }]);
    await kube.mergePatch('Application', 'argocd', 'web', {
      operation: { sync: { revision: sha }, initiatedBy: { username: 'someone' } },
    });
    await sim.settle();
    expect((await app('web')).status.operationState).toMatchObject({
      phase: 'Running',
      message: 'Sync operation blocked by sync window',
    });
    expect(await webDeployment()).toBeUndefined();
    clock.set(new Date('2026-03-10T13:00:01Z'));
    await sim.settle();
    expect((await app('web')).status.operationState).toMatchObject({
      phase: 'Succeeded',
      syncResult: { revision: sha },
    });
    expect((await app('web')).operation).toBeUndefined();
    expect(await webDeployment()).toBeDefined();
  });

  it('allow windows: automated sync only while one is active', async () => {
    await commit(webFiles(), 'web');
    await project([{ kind: 'allow', schedule: '0 14 * * *', duration: '1h', namespaces: [appNs] }]);
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: {} } }));
    await sim.settle();
    expect(await webDeployment()).toBeUndefined();
    clock.set(new Date('2026-03-10T14:00:30Z'));
    await sim.settle();
    expect(await webDeployment()).toBeDefined();
  });

  it('terminating an operation ends it as Failed and removes it', async () => {
    const sha = await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp());
    await project([{ kind: 'deny', schedule: '0 12 * * *', duration: '1h', applications: ['*'] }]);
    await kube.mergePatch('Application', 'argocd', 'web', {
      operation: { sync: { revision: sha }, initiatedBy: { username: 'u' } },
    });
    await sim.settle();
    await sim.terminateOperation('web');
    await sim.settle();
    const state = await app('web');
    expect(state.status.operationState).toMatchObject({ phase: 'Failed', message: 'Operation terminated' });
    expect(state.operation).toBeUndefined();
    expect(await webDeployment()).toBeUndefined();
  });

  it('refuses an Application whose repository the project does not permit', async () => {
    await commit(webFiles(), 'web');
    await kube.create(
      'Application',
      'argocd',
      webApp({ source: { repoURL: 'https://elsewhere.example/x.git', path: 'apps/web' } }),
    );
    await sim.settle();
    const state = await app('web');
    expect(state.status.sync.status).toBe('Unknown');
    expect(state.status.conditions?.[0]).toMatchObject({
      type: 'InvalidSpecError',
      message: "application repo https://elsewhere.example/x.git is not permitted in project 'platform'",
    });
  });

  it('the root keeps a deny window appended to an AppProject it renders (ignoreDifferences + RespectIgnoreDifferences)', async () => {
    const projectFile = (description: string) => `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: team}
spec:
  description: ${description}
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  syncWindows: []
`;
    await commit(
      { 'projects/kustomization.yaml': 'resources: [team.yaml]\n', 'projects/team.yaml': projectFile('one') },
      'project',
    );
    const rootSpec = (syncOptions: string[]) => ({
      destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      source: { repoURL: REPO_URL, path: 'projects', targetRevision: 'HEAD' },
      ignoreDifferences: [{ group: 'argoproj.io', kind: 'AppProject', jsonPointers: ['/spec/syncWindows'] }],
      syncPolicy: { automated: { selfHeal: true }, syncOptions },
    });
    await kube.create('Application', 'argocd', application('projects', rootSpec(['RespectIgnoreDifferences=true'])));
    await sim.settle();
    const lease = {
      kind: 'deny',
      schedule: '30 12 10 3 *',
      duration: '60m',
      applications: ['web'],
      manualSync: false,
      timeZone: 'UTC',
    };
    await kube.mergePatch('AppProject', 'argocd', 'team', { spec: { syncWindows: [lease] } });
    await sim.settle();
    expect((await app('projects')).status.sync.status).toBe('Synced');
    await commit({ 'projects/team.yaml': projectFile('two') }, 'describe');
    await sim.settle();
    const team = (await kube.get('AppProject', 'argocd', 'team')) as unknown as {
      spec: { description: string; syncWindows: unknown[] };
    };
    expect(team.spec.description).toBe('two');
    expect(team.spec.syncWindows).toEqual([lease]);

    // Without the sync option Argo CD applies the whole manifest: the next sync drops the window.
    await kube.mergePatch('Application', 'argocd', 'projects', { spec: { syncPolicy: { syncOptions: null } } });
    await commit({ 'projects/team.yaml': projectFile('three') }, 'again');
    await sim.settle();
    expect(
      ((await kube.get('AppProject', 'argocd', 'team')) as unknown as { spec: { syncWindows: unknown[] } }).spec
        .syncWindows,
    ).toEqual([]);
  });

  it('with operationTicks an operation is observable while Running, and a terminate ends it before anything is applied', async () => {
    const sha = await commit(webFiles(), 'web');
    await sim.close();
    sim = new ArgoCdSimulator({
      kubeConfig: server.kubeConfig(),
      clock,
      repositories: { [REPO_URL]: repo },
      operationTicks: 2,
    });
    await kube.create('Application', 'argocd', webApp());
    await sim.requestSync('web', { revision: sha });
    await sim.tick();
    expect((await app('web')).status.operationState).toMatchObject({ phase: 'Running', message: 'Sync in progress' });
    await expect(sim.requestSync('web')).rejects.toThrow('another operation is already in progress');
    await sim.terminateOperation('web');
    await sim.settle();
    expect((await app('web')).status.operationState).toMatchObject({
      phase: 'Failed',
      message: 'Operation terminated',
    });
    expect(await webDeployment()).toBeUndefined();
  });

  it('an unreadable Application gets an InvalidSpecError condition and the others still sync', async () => {
    await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'broken' },
      spec: { source: { path: 'x' } },
    });
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: {} } }));
    await sim.settle();
    const broken = await app('broken');
    expect(broken.status.conditions?.[0]?.type).toBe('InvalidSpecError');
    expect(broken.status.conditions?.[0]?.message).toContain('spec.source.repoURL');
    expect((await app('web')).status.sync.status).toBe('Synced');
  });

  it('a changed Job template fails the sync as immutable; with Force=true,Replace=true the Job is recreated and completes', async () => {
    const job = (annotations: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
${annotations}spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: compat-web}]
`;
    await commit({ 'apps/job/kustomization.yaml': 'resources: [job.yaml]\n', 'apps/job/job.yaml': job('') }, 'job');
    const jobApp = (digest: string) =>
      application('migrate', {
        source: {
          repoURL: REPO_URL,
          path: 'apps/job',
          targetRevision: 'HEAD',
          kustomize: { images: [`compat-web=${REGISTRY}/compat-web@${digest}`] },
        },
        syncPolicy: { automated: {} },
      });
    await kube.create('Application', 'argocd', jobApp(DIGEST_A));
    await sim.settle();
    expect((await app('migrate')).status.health.status).toBe('Healthy');
    await kube.mergePatch('Application', 'argocd', 'migrate', {
      spec: { source: { kustomize: { images: [`compat-web=${REGISTRY}/compat-web@${DIGEST_B}`] } } },
    });
    await sim.settle();
    const failed = await app('migrate');
    expect(failed.status.operationState?.phase).toBe('Failed');
    expect(failed.status.operationState?.message).toMatch(
      /^one or more objects failed to apply, reason: Job\.batch "migrate" is invalid: spec\.template: Invalid value: .*: field is immutable$/,
    );
    expect(failed.status.sync.status).toBe('OutOfSync');

    await commit(
      { 'apps/job/job.yaml': job('  annotations: {argocd.argoproj.io/sync-options: "Force=true,Replace=true"}\n') },
      'replace',
    );
    await sim.settle();
    const recreated = (await kube.get('Job', appNs, 'migrate')) as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(recreated.spec.template.spec.containers[0]?.image).toBe(`${REGISTRY}/compat-web@${DIGEST_B}`);
    expect((await app('migrate')).status).toMatchObject({
      sync: { status: 'Synced' },
      health: { status: 'Healthy' },
      operationState: { phase: 'Succeeded' },
    });
  });

  it('runs on an interval until stopped', async () => {
    await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: { selfHeal: true } } }));
    sim.start(20);
    try {
      const deadline = Date.now() + 10_000;
      while ((await app('web')).status?.health?.status !== 'Healthy' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
    } finally {
      await sim.stop();
    }
    expect((await app('web')).status).toMatchObject({ sync: { status: 'Synced' }, health: { status: 'Healthy' } });
    // Stopped: self-heal no longer runs.
    await kube.mergePatch('Deployment', appNs, 'web', { spec: { replicas: 0 } });
    await new Promise((r) => setTimeout(r, 100));
    expect((await webDeployment())?.spec.replicas).toBe(0);
  });

  it('reads a bare repository, as the in-cluster Git server holds it, at a branch', async () => {
    const sha = await commit(webFiles(), 'web');
    const bare = `${repo}.git`;
    await execOk(exec, 'git', ['clone', '-q', '--bare', repo, bare]);
    await sim.close();
    sim = new ArgoCdSimulator({ kubeConfig: server.kubeConfig(), clock, repositories: { [REPO_URL]: bare } });
    await kube.create(
      'Application',
      'argocd',
      webApp({
        source: { repoURL: REPO_URL, path: 'apps/web', targetRevision: 'main' },
        syncPolicy: { automated: {} },
      }),
    );
    await sim.settle();
    expect((await app('web')).status.sync).toMatchObject({ status: 'Synced', revision: sha });
  });

  it('prunes resources removed from Git when prune is enabled', async () => {
    await commit(webFiles(), 'web');
    await kube.create('Application', 'argocd', webApp({ syncPolicy: { automated: { prune: true } } }));
    await sim.settle();
    expect(await kube.get('ConfigMap', appNs, 'web-config')).toBeDefined();
    await commit({ 'apps/web/kustomization.yaml': 'resources:\n  - deployment.yaml\n' }, 'drop config');
    await sim.settle();
    // Pruned with foreground propagation: the ConfigMap goes once the garbage collector has finalized it, and the
    // Application is Synced from the next refresh on.
    await expect
      .poll(async () => (await sim.tick(), (await app('web')).status.sync.status), { timeout: 5000 })
      .toBe('Synced');
    expect(await kube.get('ConfigMap', appNs, 'web-config')).toBeUndefined();
  });
});
