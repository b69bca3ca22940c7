// The dev box's Argo CD for the delivery suites: the Argo CD simulator (test/support/argocd-simulator) running on a
// timer, whose workloads (Deployments, StatefulSets, Jobs) become available only when the registry holds the image
// they name.
import { systemClock } from '../../../scripts/lib/ports/clock.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { ArgoCdSimulator } from '../argocd-simulator/index.ts';
import type { HookRunner } from '../argocd-simulator/index.ts';
import type { KubeApiServer } from '../kube-api-server/index.ts';
import type { LocalRegistry } from '../local-registry.ts';

export interface ArgoCd {
  readonly simulator: ArgoCdSimulator;
  /** `<namespace>/<Kind>/<name>` → the image of the first container, for every workload in the platform namespaces. */
  workloadImages(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export interface ArgoCdOptions {
  readonly server: KubeApiServer;
  readonly kube: Kube;
  readonly registry: LocalRegistry;
  readonly gitRepos: Readonly<Record<string, string>>;
  readonly namespaces?: readonly string[];
  /** Images a node pulls from elsewhere than the dev box's registry (upstream images the delivery does not build). */
  readonly upstreamImages?: readonly string[];
  /** Runs sync hook Jobs (e.g. test/support/devbox/pharos-hooks.ts); without it the workload controller completes them. */
  readonly runHook?: HookRunner;
}

/** `<registry host>/<name>@sha256:…` is pullable when the registry holds that digest for that repository. */
export async function pullable(registry: LocalRegistry, image: string): Promise<boolean> {
  const at = image.indexOf('@');
  if (!image.startsWith(`${registry.host}/`) || at < 0) return false;
  const repository = image.slice(registry.host.length + 1, at);
  const digest = image.slice(at + 1);
  return (await registry.digest(repository, digest)) === digest;
}

export async function startArgoCd(options: ArgoCdOptions): Promise<ArgoCd> {
  const { kube, registry } = options;
  const namespaces = options.namespaces ?? ['pharos', 'themelio-compat'];
  const simulator = new ArgoCdSimulator({
    kubeConfig: options.server.kubeConfig(),
    clock: systemClock,
    repositories: options.gitRepos,
    workloads: {
      imageAvailable: (image) => (options.upstreamImages ?? []).includes(image) || pullable(registry, image),
    },
    ...(options.runHook === undefined ? {} : { runHook: options.runHook }),
  });
  simulator.start(100);
  return {
    simulator,
    async workloadImages() {
      const out: Record<string, string> = {};
      for (const ns of namespaces) {
        for (const kind of ['Deployment', 'StatefulSet', 'Job'] as const) {
          for (const obj of await kube.list(kind, ns)) {
            out[`${ns}/${kind}/${obj.metadata.name}`] = (obj['spec'] as any)?.template?.spec?.containers?.[0]?.image;
          }
        }
      }
      return out;
    },
    stop: () => simulator.close(),
  };
}
