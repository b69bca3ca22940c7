// A whole dev box for the delivery suites: the test Kubernetes API server, the Argo CD and BuildKit simulators,
// the real local registry, the real Git repositories, a target profile and a kubeconfig pointing at them.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { loadTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import type { TargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import { startKubeApiServer } from '../kube-api-server/index.ts';
import type { KubeApiServer } from '../kube-api-server/index.ts';
import { startBuildkitSimulator } from '../buildkit-simulator/buildkit-simulator.ts';
import type { BuildkitSimulator } from '../buildkit-simulator/buildkit-simulator.ts';
import { ensureBaseImage } from '../base-image.ts';
import { startLocalRegistry } from '../local-registry.ts';
import type { LocalRegistry } from '../local-registry.ts';
import { makePlatformRepo } from './platform-repo.ts';
import type { PlatformRepo, PlatformSource } from './platform-repo.ts';
import { kustomize } from './kustomize.ts';
import type { HookRunner } from '../argocd-simulator/index.ts';
import { startArgoCd } from './argocd.ts';
import { DEVBOX_NAMESPACES } from './devbox-namespaces.ts';
import { seedTestRegistry } from './seed-registry.ts';
import type { ArgoCd } from './argocd.ts';

const TOP = resolve(import.meta.dirname, '../../..');
// The URL the AppProjects allow as a source (examples/platform/gitops/projects).
export const CLUSTER_GIT = 'git://git.pharos-git.svc.cluster.local/platform.git';

export interface TestDevbox {
  readonly target: string;
  readonly targetsDir: string;
  readonly kubeconfig: string;
  readonly profile: TargetProfile;
  readonly server: KubeApiServer;
  readonly kube: Kube;
  readonly registry: LocalRegistry;
  readonly repo: PlatformRepo;
  readonly buildkit: BuildkitSimulator;
  readonly argocd: ArgoCd;
  /** The ownership ConfigMap's data, or undefined. */
  ownershipData(): Promise<Record<string, string> | undefined>;
  rootSource(): Promise<unknown>;
  stop(): Promise<void>;
}

export interface TestDevboxOptions {
  /** The platform repository's content (default: the example platform). */
  readonly platform?: PlatformSource;
  /**
   * What the bootstrap applied before any delivery: the example platform's AppProjects and root (default), or the
   * platform repository's own, as the Ansible bootstrap applies them (`gitops/manifests/bootstrap`'s AppProjects,
   * then `gitops/root/application.yaml`), or nothing: an empty cluster, with none of the dev box's namespaces, for
   * `make deploy`'s bootstrap layer to set up.
   */
  readonly bootstrap?: 'example' | 'platform' | 'none';
  /** Seed the registry with the catalogue's bases, as `make deploy` does (default); false for a deploy test. */
  readonly seed?: boolean;
  /** Images the nodes pull from upstream registries (the delivery builds only what the catalogue owns). */
  readonly upstreamImages?: readonly string[];
  /** The sync hooks' pods (e.g. pharosHooks), made once the API server and the registry run. */
  readonly hooks?: (parts: {
    readonly server: KubeApiServer;
    readonly kube: Kube;
    readonly registry: LocalRegistry;
  }) => HookRunner;
}

/** The AppProjects and the root Application of the bootstrap (docs/devbox.md), created as its administrator. */
async function bootstrap(kube: Kube, kind: 'example' | 'platform', repo: PlatformRepo): Promise<void> {
  if (kind === 'platform') {
    for (const doc of await kustomize(join(repo.dir, 'gitops/manifests/bootstrap')))
      if (doc.kind === 'AppProject') await kube.create('AppProject', 'argocd', doc as never);
  } else {
    for (const file of ['pharos.yaml', 'pharos-root.yaml']) {
      const project = parseYaml(await readFile(join(TOP, 'examples/platform/gitops/projects', file), 'utf8')) as never;
      await kube.create('AppProject', 'argocd', project);
    }
  }
  const from =
    kind === 'platform'
      ? join(repo.dir, 'gitops/root/application.yaml')
      : join(TOP, 'examples/platform/gitops/root/application.yaml');
  const root = parseYaml(await readFile(from, 'utf8')) as { spec: { source: Record<string, unknown> } };
  root.spec.source['repoURL'] = CLUSTER_GIT;
  await kube.create('Application', 'argocd', root as never);
}

export async function startTestDevbox(options: TestDevboxOptions = {}): Promise<TestDevbox> {
  await ensureBaseImage();
  const dir = await mkdtemp(join(tmpdir(), 'pharos-devbox-'));
  const [registry, repo, server] = await Promise.all([
    startLocalRegistry(),
    makePlatformRepo(options.platform),
    startKubeApiServer({ namespaces: options.bootstrap === 'none' ? [] : DEVBOX_NAMESPACES }),
  ]);
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const target = `dev${Math.random().toString(36).slice(2, 8)}`;
  const targetsDir = join(dir, 'targets');
  const profileText = stringify({
    schema: 1,
    kube: { kubeconfig: kubeconfig, context: 'pharos-test' },
    git: { push: repo.bare, cluster: CLUSTER_GIT, branch: 'devbox' },
    registry: { host: registry.host },
    root: { application: 'pharos-root' },
    project: 'pharos',
    build: { jobTemplate: join(TOP, 'gitops/manifests/pharos-build/buildkit-job.yaml'), timeout: '3m' },
    delivery: { ttl: '10m', syncTimeout: '60s' },
  });
  const { mkdir } = await import('node:fs/promises');
  await mkdir(targetsDir);
  await writeFile(join(targetsDir, `${target}.yaml`), profileText);
  const profile = await loadTargetProfile(targetsDir, target);
  const kube = kubeFromConfig(server.kubeConfig());
  if (options.bootstrap !== 'none') await bootstrap(kube, options.bootstrap ?? 'example', repo);
  if (options.seed !== false) await seedTestRegistry(repo.dir, registry.host);
  const buildkit = startBuildkitSimulator({
    kube,
    namespace: 'pharos-build',
    gitRepos: { [CLUSTER_GIT]: repo.bare },
    setPodLog: server.setPodLog,
    registry: registry.host,
  });
  const runHook = options.hooks?.({ server, kube, registry });
  const argocd = await startArgoCd({
    server,
    kube,
    registry,
    gitRepos: { [CLUSTER_GIT]: repo.bare },
    upstreamImages: options.upstreamImages,
    ...(runHook === undefined ? {} : { runHook }),
  });
  return {
    target,
    targetsDir,
    kubeconfig,
    profile,
    server,
    kube,
    registry,
    repo,
    buildkit,
    argocd,
    async ownershipData() {
      const cm = await kube.get('ConfigMap', 'argocd', 'pharos-platform-ownership');
      return cm?.['data'] as Record<string, string> | undefined;
    },
    async rootSource() {
      const app = await kube.get('Application', 'argocd', 'pharos-root');
      return (app?.['spec'] as { source?: unknown } | undefined)?.source;
    },
    async stop() {
      await argocd.stop();
      await buildkit.stop();
      await Promise.allSettled([server.close(), registry.stop(), repo.remove()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
