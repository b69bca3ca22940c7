// A chart host lab: the host lab (real git, signed channels and locks, the real registry) plus the Kubernetes API test
// server with simulated workload controllers, and hosts that run reconcile-deployment.ts with HEPHAESTUS_STACKS=chart
// against the Helm simulator.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { publishChartRelease } from '../../../scripts/lib/host/chart/publish-chart-release.ts';
import { releaseEvidence } from '../../../scripts/lib/host/chart/release-evidence.ts';
import type { ReleaseEvidence } from '../../../scripts/lib/host/chart/release-evidence.ts';
import type { ChartRelease } from '../../../scripts/lib/host/chart/publish-chart-release.ts';
import type { ChartLock } from '../../../scripts/lib/lock/lock-schema.ts';
import { serializeLock } from '../../../scripts/lib/lock/parse-lock.ts';
import type { ChartFiles } from '../../../scripts/lib/host/chart/chart-archive.ts';
import { chartFilesFromDir } from '../../../scripts/lib/host/chart/package-chart.ts';
import { loadSigningKey, signWithKey } from '../../../scripts/lib/signing/sign-with-key.ts';
import { makeHostLab } from '../host/host-lab.ts';
import type { Host, HostLab, Role } from '../host/host-lab.ts';
import { startKubeApiServer } from '../kube-api-server/index.ts';
import type { KubeApiServer } from '../kube-api-server/index.ts';
import { HELM_SIMULATOR } from './paths.ts';
import { startWorkloadControllers } from './workload-controllers.ts';
import type { WorkloadControllers } from './workload-controllers.ts';

export interface ChartHost extends Host {
  readonly namespace: string;
  /** Runs the Helm simulator against this host's namespace. */
  helm(...args: string[]): Promise<{ code: number; out: string; err: string }>;
  /** `revision:status` of every revision of the host's release. */
  history(): Promise<string[]>;
  /** Image of a Deployment's first container, or undefined. */
  image(deployment: string): string | undefined;
}

export interface ChartLab {
  readonly lab: HostLab;
  readonly server: KubeApiServer;
  readonly controllers: WorkloadControllers;
  /** The settings that make an existing host a chart host in namespace `ns-<environment>` (the switch's step 4). */
  chartSettings(environment: string): Record<string, string>;
  chartHost(environment: string, options?: { profile?: string; waitTimeout?: number }): Promise<ChartHost>;
  /** The chart files of a main commit (`deploy/chart/hephaestus` in that tree). */
  chartAt(commit: string): Promise<Map<string, Buffer>>;
  /** Packages, pushes and signs a chart release and publishes its joint lock on deploy-state. */
  publishRelease(
    tag: string,
    commit: string,
    images: Record<string, string>,
    options?: {
      files?: ChartFiles;
      lockSigner?: Role;
      chartSigner?: Role | 'none';
      lock?: (lock: ChartLock) => ChartLock;
      /** The evidence manifest's signer (default the release role). */
      evidenceSigner?: Role;
      /** An evidence manifest changed after the fact and signed again by the release role, or none published. */
      evidence?: ((evidence: ReleaseEvidence) => ReleaseEvidence) | 'none';
    },
  ): Promise<ChartRelease>;
  cleanup(): Promise<void>;
}

/** A pin in the lab registry's namespace; the simulated cluster never pulls it, so any digest serves. */
export const fakePin = (lab: HostLab, name: string, c: string) =>
  `${lab.registry.host}/pharos/${name}@sha256:${c.repeat(64).slice(0, 64)}`;

/** The chart's three image pins, made-up digests in the lab's registry, told apart by `c`. */
export const fakePins = (lab: HostLab, c: string) => ({
  HEPHAESTUS_IMAGE_API: fakePin(lab, 'api', c),
  HEPHAESTUS_IMAGE_WORKER: fakePin(lab, 'worker', c),
  HEPHAESTUS_IMAGE_MIGRATE: fakePin(lab, 'migrate', c),
});

/** A chart lab with one host on `environment`, and the commit the lab's repository starts at. */
export async function openChartLab(environment: string): Promise<{ lab: ChartLab; host: ChartHost; main: string }> {
  const lab = await makeChartLab();
  return { lab, main: await lab.lab.repo.git(['rev-parse', 'HEAD']), host: await lab.chartHost(environment) };
}

export async function makeChartLab(): Promise<ChartLab> {
  const lab = await makeHostLab();
  const server = await startKubeApiServer();
  const controllers = startWorkloadControllers(server);
  const dir = await mkdtemp(join(tmpdir(), 'chart-lab-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const signers = {
    promote: loadSigningKey(await readFile(lab.key), lab.key),
    release: loadSigningKey(await readFile(lab.releaseKey), lab.releaseKey),
  };
  const chartAt = async (commit: string): Promise<Map<string, Buffer>> => {
    const tree = join(dir, `tree-${commit.slice(0, 12)}`);
    await execOk(exec, 'git', ['-C', lab.repo.remote, 'worktree', 'add', '--detach', tree, commit]);
    try {
      return await chartFilesFromDir(join(tree, 'deploy', 'chart', 'hephaestus'));
    } finally {
      await exec('git', ['-C', lab.repo.remote, 'worktree', 'remove', '--force', tree]);
    }
  };
  return {
    lab,
    server,
    controllers,
    chartSettings: (environment) => {
      server.addNamespace(`ns-${environment}`);
      return {
        HEPHAESTUS_STACKS: 'chart',
        HEPHAESTUS_HELM: HELM_SIMULATOR,
        KUBECONFIG: kubeconfig,
        HEPHAESTUS_CHART_NAMESPACE: `ns-${environment}`,
      };
    },
    chartHost: async (environment, options = {}) => {
      const base = await lab.host(environment, { stacks: 'chart', waitTimeout: options.waitTimeout ?? 20 });
      const namespace = `ns-${environment}`;
      server.addNamespace(namespace);
      const extra = {
        HEPHAESTUS_HELM: HELM_SIMULATOR,
        KUBECONFIG: kubeconfig,
        HEPHAESTUS_CHART_NAMESPACE: namespace,
        ...(options.profile === undefined ? {} : { HEPHAESTUS_CHART_PROFILE: options.profile }),
      };
      Object.assign(base.env, extra);
      const helm = async (...args: string[]) => {
        const r = await exec(HELM_SIMULATOR, [...args, '--namespace', namespace], {
          env: { ...process.env, KUBECONFIG: kubeconfig },
          timeoutMs: 60_000,
        });
        return { code: r.code, out: r.stdout.toString('utf8'), err: r.stderr };
      };
      return Object.assign(base, {
        namespace,
        helm,
        history: async () => {
          const r = await helm('history', 'hephaestus', '-o', 'json');
          return r.code !== 0
            ? []
            : (JSON.parse(r.out) as { revision: number; status: string }[]).map((h) => `${h.revision}:${h.status}`);
        },
        image: (deployment: string) => {
          const entry = server.store
            .entries()
            .find(
              (e) =>
                e.type.kind === 'Deployment' && e.namespace === namespace && e.object.metadata['name'] === deployment,
            );
          const spec = entry?.object['spec'] as { template: { spec: { containers: { image: string }[] } } } | undefined;
          return spec?.template.spec.containers[0]?.image;
        },
      });
    },
    chartAt,
    publishRelease: async (tag, commit, images, options = {}) => {
      const files = options.files ?? (await chartAt(commit));
      let count = 0;
      const release = await publishChartRelease({
        files,
        tag,
        commit,
        images,
        registry: lab.registry.host,
        repository: 'charts/hephaestus',
        // The first signature is the lock's, the second the chart's: each by the role the test asks for; the third, the
        // evidence manifest's, always the release role's.
        sign: (bytes) => {
          const index = count++;
          const role =
            index === 0
              ? options.lockSigner
              : index === 1
                ? options.chartSigner === 'none'
                  ? undefined
                  : options.chartSigner
                : options.evidenceSigner;
          return signWithKey(bytes, signers[role ?? 'release']);
        },
      });
      let published: Record<string, Buffer> = { ...release.files };
      if (options.chartSigner === 'none') delete published[`release-${tag}.chart.tgz.sigstore.json`];
      if (options.lock !== undefined) {
        // A lock that differs from what was pushed, signed again by the release role: only the host's checks stop it.
        const changed = options.lock(structuredClone(release.lock));
        const bytes = Buffer.from(serializeLock(changed));
        // Its evidence manifest made from it and signed again too, so the host's own checks of the lock are what stop it.
        const evidence = Buffer.from(
          `${JSON.stringify(
            releaseEvidence({
              lock: changed,
              lockFile: `release-${tag}.chart.json`,
              lockBytes: bytes,
              packageFile: `${changed.chart.name}-${changed.chart.version}.tgz`,
              packageBytes: release.archive,
              signatureFile: `release-${tag}.chart.tgz.sigstore.json`,
              signatureBytes: published[`release-${tag}.chart.tgz.sigstore.json`] ?? Buffer.alloc(0),
            }),
          )}\n`,
        );
        published = {
          ...published,
          [`release-${tag}.chart.json`]: bytes,
          [`release-${tag}.chart.json.sigstore.json`]: Buffer.from(signWithKey(bytes, signers.release)),
          [`release-${tag}.evidence.json`]: evidence,
          [`release-${tag}.evidence.json.sigstore.json`]: Buffer.from(signWithKey(evidence, signers.release)),
        };
      }
      const evidenceFile = `release-${tag}.evidence.json`;
      if (options.evidence === 'none') {
        delete published[evidenceFile];
        delete published[`${evidenceFile}.sigstore.json`];
      } else if (options.evidence !== undefined) {
        const changed = Buffer.from(
          `${JSON.stringify(options.evidence(JSON.parse(String(published[evidenceFile])) as ReleaseEvidence))}\n`,
        );
        published[evidenceFile] = changed;
        published[`${evidenceFile}.sigstore.json`] = Buffer.from(signWithKey(changed, signers.release));
      }
      await lab.publishFiles(Object.fromEntries(Object.entries(published).map(([k, v]) => [`locks/${k}`, v])));
      await lab.tag(tag, commit);
      return release;
    },
    cleanup: async () => {
      controllers.stop();
      await server.close();
      await lab.cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
