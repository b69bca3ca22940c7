// The pharos sync hooks' pods, for the Argo CD simulator's `runHook` (no kubelet runs here): what the kubelet does
// for a hook Job of gitops/manifests/pharos/overlays/devbox before and while its container runs, then the container
// itself. The kubelet's part: refuse a pod whose ServiceAccount or projected Secret key is missing, give the pod its
// service account's credentials (a kubeconfig with a token the API test server authenticates as
// `system:serviceaccount:<ns>:<name>`, in place of the in-cluster token), write the projected Secret volume
// (defaultMode, fsGroup), expand `$(VAR)` in args as Kubernetes does, and resolve the Service `postgres` to the test's
// PostgreSQL 15. The container runs either from a checkout (`node <dir>/scripts/…`, fast) or as the Job names it:
// the image pulled by `docker pull` (only what the dev box's registry holds) and run with the real Docker Engine, as
// the pod's securityContext says (user, fsGroup, read-only root, no capabilities).
import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { HookRunner } from '../argocd-simulator/index.ts';
import type { Manifest } from '../argocd-simulator/manifest.ts';
import { ADMIN_TOKEN } from '../kube-api-server/index.ts';
import type { KubeApiServer } from '../kube-api-server/index.ts';
import type { PostgresServer } from '../postgres-server.ts';
import { NODE } from '../run-script.ts';

/** Where the container's process comes from: this machine's Node in a checkout, or the Job's image in Docker. */
export type HookRuntime =
  | { readonly kind: 'checkout'; readonly dir: string }
  | { readonly kind: 'image'; readonly pullable: (image: string) => boolean | Promise<boolean> };

export interface HookRun {
  readonly job: string;
  readonly image: string;
  /** What `observe` saw when the pod started. */
  readonly seen: Readonly<Record<string, boolean>>;
  /** The container's exit status; -1 when the pod never started (the kubelet's reason is in stderr). */
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PharosHooksOptions {
  readonly server: KubeApiServer;
  readonly kube: Kube;
  readonly postgres: PostgresServer;
  /** A folder for the pods' volumes and kubeconfigs (the caller removes it). */
  readonly scratch: string;
  readonly runtime: HookRuntime;
  /** Called as each pod starts: what the test wants to know about the cluster at that moment. */
  readonly observe?: () => Promise<Record<string, boolean>>;
}

export interface PharosHooks {
  readonly runHook: HookRunner;
  /** Every hook pod, in order. */
  readonly runs: readonly HookRun[];
}

type EnvVar = { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } };
type SecurityContext = {
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[] };
};
type Container = {
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: SecurityContext;
};
type ProjectedSource = { secret?: { name: string; items?: { key: string; path: string }[] } };
type PodSpec = {
  containers: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext;
  volumes?: { name: string; projected?: { defaultMode?: number; sources: ProjectedSource[] } }[];
};

/** Kubernetes' `$(VAR)` expansion of command and args: defined names are replaced, `$$` escapes, others stay as written. */
export function expandVars(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (match, name: string | undefined) =>
    match === '$$' ? '$' : (env[name as string] ?? match),
  );
}

/** The fieldRefs the hooks use, resolved as the kubelet resolves them for this pod. */
function podEnv(container: Container, namespace: string, pod: string): Record<string, string> {
  const env: Record<string, string> = {};
  const fields: Record<string, string> = { 'metadata.namespace': namespace, 'metadata.name': pod };
  for (const e of container.env ?? []) {
    const value = e.value ?? (e.valueFrom?.fieldRef ? fields[e.valueFrom.fieldRef.fieldPath] : undefined);
    if (value !== undefined) env[e.name] = expandVars(value, env);
  }
  return env;
}

function spawnCollect(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ status: 127, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
  });
}

export function pharosHooks(options: PharosHooksOptions): PharosHooks {
  const { kube, server, postgres } = options;
  const runs: HookRun[] = [];
  let pods = 0;

  const secretValue = async (namespace: string, name: string, key: string): Promise<string | undefined> => {
    const data = (await kube.get('Secret', namespace, name))?.['data'] as Record<string, string> | undefined;
    return data?.[key] === undefined ? undefined : Buffer.from(data[key] as string, 'base64').toString('utf8');
  };

  /** The projected Secret volume: one file per item (defaultMode, group fsGroup), or the reason the pod cannot start. */
  const project = async (
    spec: PodSpec,
    volume: string,
    namespace: string,
    into: string,
  ): Promise<string | undefined> => {
    const projected = spec.volumes?.find((v) => v.name === volume)?.projected;
    if (projected === undefined)
      return `CreateContainerConfigError: volume "${volume}" is not a projected volume this stand-in knows`;
    await mkdir(into, { recursive: true, mode: 0o755 });
    for (const source of projected.sources) {
      if (source.secret === undefined) return `CreateContainerConfigError: only Secret sources are simulated`;
      for (const item of source.secret.items ?? []) {
        const value = await secretValue(namespace, source.secret.name, item.key);
        if (value === undefined)
          return `CreateContainerConfigError: couldn't find key ${item.key} in Secret ${namespace}/${source.secret.name}`;
        const file = join(into, item.path);
        await writeFile(file, value, { mode: projected.defaultMode ?? 0o644 });
        if (spec.securityContext?.fsGroup !== undefined && process.getuid?.() === 0)
          await chown(file, 0, spec.securityContext.fsGroup);
      }
    }
    return undefined;
  };

  /** The service account's credentials, or the reason the pod is not created (the ServiceAccount admission plugin). */
  const serviceAccount = async (
    spec: PodSpec,
    namespace: string,
    dir: string,
  ): Promise<{ kubeconfig?: string; problem?: string }> => {
    if (spec.automountServiceAccountToken === false) return {};
    const name = spec.serviceAccountName ?? 'default';
    const found = await fetch(`${server.url}/api/v1/namespaces/${namespace}/serviceaccounts/${name}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    if (found.status === 404)
      return {
        problem: `FailedCreate: error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`,
      };
    const token = `sa-${namespace}-${name}-${pods}`;
    server.addUser(token, `system:serviceaccount:${namespace}:${name}`, [
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ]);
    const kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig, namespace, token);
    await chmod(kubeconfig, 0o444); // the token file is world-readable in the pod too; the container runs as UID 70
    return { kubeconfig };
  };

  const runHook: HookRunner = async (job: Manifest) => {
    const seen = (await options.observe?.()) ?? {};
    const name = job.metadata.name;
    const namespace = job.metadata.namespace ?? 'default';
    const spec = (job['spec'] as { template: { spec: PodSpec } }).template.spec;
    const container = spec.containers[0] as Container;
    const pod = `${name}-${(pods++).toString(36).padStart(5, '0')}`;
    const dir = await mkdtemp(join(options.scratch, `${pod}-`));
    const fail = (stderr: string) => {
      runs.push({ job: name, image: container.image, seen, status: -1, stdout: '', stderr });
      return { succeeded: false, message: stderr };
    };
    const env = podEnv(container, namespace, pod);
    const account = await serviceAccount(spec, namespace, dir);
    if (account.problem !== undefined) return fail(account.problem);
    const mounts: { host: string; path: string }[] = [];
    for (const mount of container.volumeMounts ?? []) {
      const host = join(dir, `volume-${mount.name}`);
      const problem = await project(spec, mount.name, namespace, host);
      if (problem !== undefined) return fail(problem);
      mounts.push({ host, path: mount.mountPath });
    }
    if (options.runtime.kind === 'image' && !(await options.runtime.pullable(container.image))) {
      return fail(
        `ErrImagePull: image "${container.image}" is not in the dev box's registry (hook Jobs must name the delivered digest)`,
      );
    }
    const admin = await secretValue(namespace, 'postgres-credentials', 'POSTGRES_PASSWORD');
    // PostgreSQL's image sets the administrator from POSTGRES_PASSWORD; the test server stands in for its pod.
    if (admin !== undefined) await postgres.setAdminPassword(admin);
    // The Service `postgres` (port 5432) is the test server on its free loopback port.
    const args = [...(container.command ?? []), ...(container.args ?? [])]
      .map((a) => expandVars(a, env))
      .map((a) => (a === 'postgres' ? postgres.host : a));
    if (args.includes('--host')) args.push('--port', String(postgres.port));
    let result: { status: number; stdout: string; stderr: string };
    if (options.runtime.kind === 'checkout') {
      const local = args.map((a) => mounts.find((m) => m.path === a)?.host ?? a);
      const [program, ...rest] = local;
      if (program !== 'node')
        return fail(`CreateContainerError: the checkout runtime runs node only, not "${program ?? ''}"`);
      const processEnv = { ...process.env, ...env, ...(account.kubeconfig ? { KUBECONFIG: account.kubeconfig } : {}) };
      result = await spawnCollect(NODE, rest, { cwd: options.runtime.dir, env: processEnv });
    } else {
      result = await spawnCollect('docker', dockerRunArgs(spec, container, env, mounts, account.kubeconfig, args));
    }
    runs.push({ job: name, image: container.image, seen, ...result });
    return { succeeded: result.status === 0, message: result.stderr.trim().split('\n').at(-1) };
  };

  return { runHook, runs };
}

const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** `docker run` as the kubelet would start the container: host network (the test servers listen on loopback). */
function dockerRunArgs(
  spec: PodSpec,
  container: Container,
  env: Record<string, string>,
  mounts: readonly { host: string; path: string }[],
  kubeconfig: string | undefined,
  args: readonly string[],
): string[] {
  const pod = spec.securityContext ?? {};
  const own = container.securityContext ?? {};
  const user = own.runAsUser ?? pod.runAsUser;
  const group = own.runAsGroup ?? pod.runAsGroup;
  const out = ['run', '--rm', '--network', 'host'];
  if (user !== undefined) out.push('--user', `${user}${group === undefined ? '' : `:${group}`}`);
  if (pod.fsGroup !== undefined) out.push('--group-add', String(pod.fsGroup));
  if (own.readOnlyRootFilesystem === true) out.push('--read-only');
  if (own.allowPrivilegeEscalation === false) out.push('--security-opt', 'no-new-privileges');
  for (const cap of own.capabilities?.drop ?? []) out.push('--cap-drop', cap);
  for (const [key, value] of Object.entries(env)) out.push('--env', `${key}=${value}`);
  if (kubeconfig !== undefined)
    out.push('--volume', `${kubeconfig}:${TOKEN_DIR}/kubeconfig:ro`, '--env', `KUBECONFIG=${TOKEN_DIR}/kubeconfig`);
  for (const m of mounts) out.push('--volume', `${m.host}:${m.path}:ro`);
  // The image's WORKDIR stays; Kubernetes' `command` replaces the entrypoint, `args` the CMD.
  if ((container.command?.length ?? 0) > 0)
    out.push('--entrypoint', args[0] as string, container.image, ...args.slice(1));
  else out.push(container.image, ...args);
  return out;
}

/** The Argo CD simulator's events of one first sync of pharos, in the order of the document's wave table (docs/pharos.md). */
export const PHAROS_WAVE_EVENTS: readonly string[] = [
  'Sync wave -4: applied NetworkPolicy/credentials-egress, NetworkPolicy/default-deny, NetworkPolicy/dns, NetworkPolicy/postgres-ingress-provision, NetworkPolicy/provision-egress, NetworkPolicy/traffic-agent-egress, ServiceAccount/pharos-credentials, Role/pharos-credentials, RoleBinding/pharos-credentials',
  'Sync wave -3: applied hook Job/pharos-credentials',
  'hook Job/pharos-credentials created',
  'hook Job/pharos-credentials succeeded',
  'Sync wave -2: applied ServiceAccount/postgres, Service/postgres, StatefulSet/postgres',
  'Sync wave -1: applied hook Job/pharos-database-provision',
  'hook Job/pharos-database-provision created',
  'hook Job/pharos-database-provision succeeded',
  'Sync wave 0: applied NetworkPolicy/database-clients-egress, NetworkPolicy/postgres-ingress-clients, Service/api, Deployment/api, Deployment/worker',
];
