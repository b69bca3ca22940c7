// A delivered dev box target for the takeover suites: the test Kubernetes API server, the Argo CD simulator (on a
// clock tests can move forward), the real platform repository and the in-cluster Git server (a bare repository),
// and the state a delivery leaves (ownership ConfigMap, root inputs, local receipt). Images are named by digest but
// not built: takeover never pulls them, and the delivery suites prove the builds.
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { Clock } from '../../../scripts/lib/ports/clock.ts';
import { loadTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import type { TargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import { rootInputs, rootInputsPatch } from '../../../scripts/lib/delivery/root-inputs.ts';
import { writeReceipt } from '../../../scripts/lib/target/receipt.ts';
import type { Receipt } from '../../../scripts/lib/target/receipt.ts';
import { targetStatePaths } from '../../../scripts/lib/target/state-paths.ts';
import { openGitTreeSource } from '../../../scripts/lib/fingerprint/git-tree-source.ts';
import { fingerprintImages } from '../../../scripts/lib/fingerprint/fingerprint-images.ts';
import { loadCatalogue } from '../../../scripts/lib/fingerprint/open-source.ts';
import { startKubeApiServer } from '../kube-api-server/index.ts';
import { DEVBOX_NAMESPACES } from '../devbox/devbox-namespaces.ts';
import type { KubeApiServer } from '../kube-api-server/index.ts';
import { ArgoCdSimulator } from '../argocd-simulator/index.ts';
import { makePlatformRepo } from '../devbox/platform-repo.ts';
import type { PlatformRepo } from '../devbox/platform-repo.ts';

const TOP = resolve(import.meta.dirname, '../../..');
export const CLUSTER_GIT = 'git://git.pharos-git.svc.cluster.local/platform.git';
const REGISTRY = 'registry.pharos-build.svc.cluster.local:5000';

/** Real time plus an offset the test moves forward (a workstation that slept, a lease that ran out). */
export interface ShiftedClock extends Clock {
  advance(ms: number): void;
}

export function shiftedClock(): ShiftedClock {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) };
}

export interface TestTarget {
  readonly name: string;
  readonly targetsDir: string;
  readonly profile: TargetProfile;
  readonly server: KubeApiServer;
  readonly kube: Kube;
  readonly repo: PlatformRepo;
  readonly sim: ArgoCdSimulator;
  readonly clock: ShiftedClock;
  readonly receipt: Receipt;
  /** A second checkout of the same platform (another developer). */
  cloneCheckout(): Promise<string>;
  /** The lease record as JSON, or undefined. */
  lease(): Promise<Record<string, unknown> | undefined>;
  windows(): Promise<unknown[]>;
  replicas(namespace: string, name: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

const digest = (name: string) => `sha256:${createHash('sha256').update(name).digest('hex')}`;

// compat-web (the example platform's own manifest, changed) runs 2 replicas with an environment, so restoring "exactly" and "the workload's environment" can be seen.
const COMPAT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: compat-web
spec:
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: compat-web}
  template:
    metadata:
      labels: {app.kubernetes.io/name: compat-web}
    spec:
      containers:
        - name: compat-web
          image: pharos/compat-web
          env:
            - {name: APP, value: from-the-cluster}
            - name: GREETING
              valueFrom: {configMapKeyRef: {name: compat-config, key: greeting}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: compat-config
data:
  greeting: hello-from-configmap
`;

export async function startTestTarget(
  options: { syncTimeout?: string; files?: Readonly<Record<string, string>> } = {},
): Promise<TestTarget> {
  const dir = await mkdtemp(join(tmpdir(), 'pharos-takeover-'));
  const [server, repo] = await Promise.all([startKubeApiServer({ namespaces: DEVBOX_NAMESPACES }), makePlatformRepo()]);
  const clock = shiftedClock();
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const name = `dev${Math.random().toString(36).slice(2, 8)}`;
  const targetsDir = join(dir, 'targets');
  await mkdir(targetsDir);
  await writeFile(
    join(targetsDir, `${name}.yaml`),
    stringify({
      schema: 1,
      kube: { kubeconfig, context: 'pharos-test' },
      git: { push: repo.bare, cluster: CLUSTER_GIT, branch: 'devbox' },
      registry: { host: REGISTRY },
      root: { application: 'pharos-root' },
      project: 'pharos',
      build: { jobTemplate: join(TOP, 'gitops/manifests/pharos-build/buildkit-job.yaml') },
      delivery: { ttl: '10m', syncTimeout: options.syncTimeout ?? '60s' },
    }),
  );
  const profile = await loadTargetProfile(targetsDir, name);
  const kube = kubeFromConfig(server.kubeConfig());
  const commit = await repo.commit('compat-web: two replicas with an environment', {
    'gitops/manifests/themelio-compat/web.yaml': COMPAT,
    ...options.files,
  });
  await repo.git('push', '--quiet', '--force', repo.bare, `${commit}:refs/heads/devbox`);
  for (const file of ['pharos.yaml', 'pharos-root.yaml']) {
    await kube.create(
      'AppProject',
      'argocd',
      parseYaml(await readFile(join(TOP, 'examples/platform/gitops/projects', file), 'utf8')) as never,
    );
  }
  const root = parseYaml(await readFile(join(TOP, 'examples/platform/gitops/root/application.yaml'), 'utf8')) as {
    spec: { source: Record<string, unknown> };
  };
  root.spec.source['repoURL'] = CLUSTER_GIT;
  await kube.create('Application', 'argocd', root as never);
  // What a delivery records: revision and images (one write), then the root's inputs, then the local receipt.
  const tree = await openGitTreeSource(repo.dir, commit);
  const catalogue = await loadCatalogue(tree);
  const images = Object.fromEntries(catalogue.images.map((i) => [i.name, `${REGISTRY}/${i.name}@${digest(i.name)}`]));
  await kube.create('ConfigMap', 'argocd', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: profile.ownership, namespace: 'argocd' },
    data: { revision: JSON.stringify(commit), images: JSON.stringify(images) },
  });
  const live = await kube.get('Application', 'argocd', 'pharos-root');
  const patch = rootInputsPatch(live as { spec?: unknown }, rootInputs(catalogue, commit, images, CLUSTER_GIT));
  if (patch) await kube.mergePatch('Application', 'argocd', 'pharos-root', patch);
  const sim = new ArgoCdSimulator({
    kubeConfig: server.kubeConfig(),
    clock,
    repositories: { [CLUSTER_GIT]: repo.bare },
  });
  await sim.requestSync('pharos-root', { revision: commit });
  await sim.settle(40);
  const fingerprints = await fingerprintImages(tree, catalogue);
  const receipt: Receipt = {
    schema: 1,
    commit,
    delivered: `${new Date().toISOString().slice(0, 19)}Z`,
    images: Object.fromEntries(
      fingerprints.map((f) => [f.name, { fingerprint: f.fingerprint, reference: images[f.name] as string }]),
    ),
  };
  await writeReceipt((await targetStatePaths(repo.dir, name)).receipt, receipt);
  const clones: string[] = [];
  return {
    name,
    targetsDir,
    profile,
    server,
    kube,
    repo,
    sim,
    clock,
    receipt,
    async cloneCheckout() {
      const other = await mkdtemp(join(tmpdir(), 'pharos-other-'));
      clones.push(other);
      await cp(repo.dir, join(other, 'platform'), { recursive: true });
      return join(other, 'platform');
    },
    async lease() {
      const cm = await kube.get('ConfigMap', 'argocd', profile.ownership);
      const text = (cm?.['data'] as Record<string, string> | undefined)?.['lease'];
      return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
    },
    async windows() {
      const project = await kube.get('AppProject', 'argocd', 'pharos');
      return ((project?.['spec'] as { syncWindows?: unknown[] } | undefined)?.syncWindows ?? []) as unknown[];
    },
    async replicas(namespace, workload) {
      const object = await kube.get('Deployment', namespace, workload);
      return (object?.['spec'] as { replicas?: number } | undefined)?.replicas;
    },
    async stop() {
      await sim.stop();
      await server.close();
      await Promise.allSettled([
        repo.remove(),
        rm(dir, { recursive: true, force: true }),
        ...clones.map((c) => rm(c, { recursive: true, force: true })),
      ]);
    },
  };
}
