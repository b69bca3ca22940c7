// BuildKit simulator (no Kubernetes or BuildKit runs here): a test controller that watches the BuildKit Jobs in
// pharos-build, builds each with the REAL Docker Engine from the commit it names in the REAL local Git server,
// pushes to the REAL local registry, and completes the Job the way a finished `buildctl-daemonless.sh` does:
// the pod log holds the build output, the build container's termination message holds buildctl's metadata
// (with "containerimage.digest"), the Job gets a Complete or Failed condition.
// The environment is the build namespace's (gitops/manifests/pharos-build/network-policies.yaml: DNS, Git and the
// in-cluster registry only), as BuildKit v0.16.0 (moby/buildkit@0865fcc9b78559e856e81dc52b3613701e7be28d, the
// Job's image) meets it. rootless buildkitd has no image store: every FROM, `COPY --from` image and `# syntax=`
// frontend is resolved from its registry (client/llb/sourceresolver/imageresolver.go: ResolveImageConfig, whose
// error reads "failed to resolve source metadata for <ref>"; frontend/dockerfile/builder/build.go: forwardGateway),
// so a source outside the in-cluster registry fails as the dropped connection does, and one the registry does not
// hold fails as containerd's resolver's "not found" (vendor/github.com/containerd/containerd/remotes/docker/
// resolver.go). What the registry holds is pulled (`docker build --pull`). RUN steps get no network at all
// (`docker build --network none`): the Job asks BuildKit for that (`force-network-mode=none`, frontend/dockerui/
// config.go and attr.go: parseNetMode); without it the policy would still drop everything outside the cluster,
// which this models more strictly (a step reaching the in-cluster registry or Git server fails here too).
// `ADD <url>` is fetched by BuildKit itself, outside any step: refused as the policy drops it.
import { spawn } from 'node:child_process';
import { posix } from 'node:path';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { KubeObject } from '../../../scripts/lib/ports/kube-kinds.ts';
import { parseBuildctl } from './parse-buildctl.ts';
import type { BuildctlRequest } from './parse-buildctl.ts';
import { dockerfileSources } from './dockerfile-sources.ts';

export interface BuildkitSimulatorOptions {
  readonly kube: Kube;
  readonly namespace: string;
  /** The in-cluster Git URL → the local bare repository it stands for. */
  readonly gitRepos: Readonly<Record<string, string>>;
  /** Where pod logs go (the test API server's `setPodLog`). */
  readonly setPodLog: (namespace: string, pod: string, text: string) => void;
  /** The in-cluster registry's host (`127.0.0.1:<port>` of the test registry): the only one a build reaches. */
  readonly registry: string;
  readonly pollMs?: number;
}

export interface BuildkitSimulator {
  /** Every build run, in order of start. */
  readonly builds: readonly { readonly job: string; readonly image: string; readonly ok: boolean }[];
  stop(): Promise<void>;
}

interface Outcome {
  readonly ok: boolean;
  readonly log: string;
  readonly digest?: string;
  readonly image?: string;
}

function run(
  command: string,
  args: readonly string[],
  options: { input?: NodeJS.ReadableStream; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    if (options.input && child.stdin) options.input.pipe(child.stdin);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Docker's reference.ParseNormalizedNamed: the registry host (docker.io when none), the repository, the tag or digest. */
function normalize(reference: string): { host: string; repository: string; ref: string; name: string } {
  const slash = reference.indexOf('/');
  const first = slash < 0 ? '' : reference.slice(0, slash);
  const named = first.includes('.') || first.includes(':') || first === 'localhost';
  let rest = named ? reference.slice(slash + 1) : reference;
  if (!named && !rest.includes('/')) rest = `library/${rest}`;
  const at = rest.indexOf('@');
  const colon = rest.slice(0, at < 0 ? undefined : at).lastIndexOf(':');
  const end = colon >= 0 ? colon : at >= 0 ? at : rest.length;
  const repository = rest.slice(0, end);
  const ref = at >= 0 ? rest.slice(at + 1) : colon >= 0 ? rest.slice(colon + 1) : 'latest';
  const host = named ? first : 'docker.io';
  return { host, repository, ref, name: `${host}/${rest}${colon < 0 && at < 0 ? ':latest' : ''}` };
}

/** Why BuildKit in pharos-build cannot resolve `reference`, or undefined when the in-cluster registry holds it. */
async function unresolvable(reference: string, registry: string): Promise<string | undefined> {
  const { host, repository, ref, name } = normalize(reference);
  if (host !== registry) {
    const endpoint = host === 'docker.io' ? 'registry-1.docker.io' : host;
    return `${reference}: failed to resolve source metadata for ${name}: failed to do request: Head "https://${endpoint}/v2/${repository}/manifests/${ref}": dial tcp: i/o timeout`;
  }
  const answer = await fetch(`http://${registry}/v2/${repository}/manifests/${ref}`, {
    method: 'HEAD',
    headers: { accept: MANIFESTS },
  }).catch(() => undefined);
  return answer?.ok === true
    ? undefined
    : `${reference}: failed to resolve source metadata for ${name}: ${name}: not found`;
}

const MANIFESTS = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

/** The `load metadata` lines BuildKit prints, and the `error: failed to solve` line of the first source it cannot fetch. */
async function resolveSources(
  request: BuildctlRequest,
  bare: string,
  registry: string,
): Promise<{ log: string; refused: boolean }> {
  const file = posix.join(request.subdir, request.filename);
  const shown = await run('git', ['-C', bare, 'show', `${request.commit}:${file}`]);
  if (shown.code !== 0)
    return { log: `error: failed to solve: failed to read dockerfile: ${shown.out}`, refused: true };
  const args = new Map(request.buildArgs);
  let sources: ReturnType<typeof dockerfileSources>;
  try {
    sources = dockerfileSources(shown.out, args, request.target);
  } catch (error) {
    return { log: `error: failed to solve: ${(error as Error).message}\n`, refused: true };
  }
  let log = '';
  const frontend = args.get('BUILDKIT_SYNTAX')?.split(' ')[0] ?? sources.syntax;
  const wanted = [...(frontend === undefined ? [] : [frontend]), ...sources.images.map((i) => i.reference)];
  for (const [step, reference] of wanted.entries()) {
    log += `#${step + 2} [internal] load metadata for ${normalize(reference).name}\n`;
    const why = await unresolvable(reference, registry);
    if (why !== undefined)
      return { log: `${log}#${step + 2} ERROR: ${why}\nerror: failed to solve: ${why}\n`, refused: true };
    log += `#${step + 2} DONE\n`;
  }
  const remote = sources.remotes[0];
  if (remote !== undefined) {
    const why = `failed to load cache key: Get "${remote.url}": dial tcp: i/o timeout`;
    return { log: `${log}error: failed to solve: ${why}\n`, refused: true };
  }
  return { log, refused: false };
}

/** `git archive <commit>:<subdir>` piped into `docker build -`, then `docker push`: what BuildKit does with a Git context. */
async function buildAndPush(request: BuildctlRequest, bare: string, job: string, registry: string): Promise<Outcome> {
  const tree = request.subdir === '' ? request.commit : `${request.commit}:${request.subdir}`;
  const resolved = await resolveSources(request, bare, registry);
  if (resolved.refused) return { ok: false, log: `#1 [git] ${request.gitUrl}#${tree}\n${resolved.log}` };
  const archive = spawn('git', ['-C', bare, 'archive', '--format=tar', tree], { stdio: ['ignore', 'pipe', 'pipe'] });
  let archiveErr = '';
  archive.stderr.on('data', (c: Buffer) => (archiveErr += c.toString()));
  const tag = `${request.imageName}:sim-${job}`;
  // Bases as the registry holds them; no step reaches a network.
  const args = [
    'build',
    '--quiet=false',
    '--force-rm',
    '--pull',
    '--network',
    'none',
    '-f',
    request.filename,
    '-t',
    tag,
  ];
  if (request.target !== undefined) args.push('--target', request.target);
  for (const [key, value] of request.buildArgs) args.push('--build-arg', `${key}=${value}`);
  if (request.platform !== undefined) args.push('--platform', request.platform);
  args.push('-');
  // The Engine's own builder, from what the in-cluster registry holds.
  const built = await run('docker', args, { input: archive.stdout, env: { ...process.env, DOCKER_BUILDKIT: '0' } });
  let log = `#1 [git] ${request.gitUrl}#${tree}\n${resolved.log}${archiveErr}${built.out}`;
  if (built.code !== 0) return { ok: false, log };
  if (!request.push) return { ok: true, log };
  const pushed = await run('docker', ['push', tag]);
  log += pushed.out;
  await run('docker', ['rmi', '--no-prune', tag]);
  const digest = /digest: (sha256:[0-9a-f]{64})/.exec(pushed.out)?.[1];
  if (pushed.code !== 0 || digest === undefined) return { ok: false, log };
  return { ok: true, log, digest, image: request.imageName };
}

export function startBuildkitSimulator(options: BuildkitSimulatorOptions): BuildkitSimulator {
  const { kube, namespace } = options;
  const seen = new Set<string>();
  const running = new Set<Promise<void>>();
  const builds: { job: string; image: string; ok: boolean }[] = [];
  let stopped = false;

  async function handle(job: KubeObject): Promise<void> {
    const name = job.metadata.name;
    const spec = job['spec'] as {
      template: { spec: { containers: { name: string; command?: string[]; args?: string[] }[] } };
    };
    const container =
      spec.template.spec.containers.find((c) => c.name === 'buildkit') ?? spec.template.spec.containers[0];
    const pod = `${name}-${Math.random().toString(36).slice(2, 7)}`;
    const uid = job.metadata.uid ?? '';
    // As the Job controller makes them: labelled with the Job's name and uid, owned by the Job; scheduled on a node.
    const labels = {
      'job-name': name,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'batch.kubernetes.io/controller-uid': uid,
    };
    const ownerReferences = [
      { apiVersion: 'batch/v1', kind: 'Job', name, uid, controller: true, blockOwnerDeletion: true },
    ];
    await kube.create('Pod', namespace, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace, labels, ownerReferences },
      spec: {
        restartPolicy: 'Never',
        nodeName: 'devbox',
        containers: [{ name: container?.name ?? 'buildkit', image: 'moby/buildkit:rootless' }],
      },
    });
    await kube.mergePatchStatus('Pod', namespace, pod, { status: { phase: 'Running' } });
    await kube.mergePatchStatus('Job', namespace, name, { status: { active: 1, startTime: new Date().toISOString() } });
    let outcome: Outcome;
    try {
      const request = parseBuildctl(container?.command ?? [], container?.args ?? []);
      const bare = options.gitRepos[request.gitUrl];
      outcome =
        bare === undefined
          ? { ok: false, log: `error: failed to fetch ${request.gitUrl}: no such repository\n` }
          : await buildAndPush(request, bare, name, options.registry);
      builds.push({ job: name, image: request.imageName, ok: outcome.ok });
    } catch (error) {
      outcome = { ok: false, log: `error: ${(error as Error).message}\n` };
    }
    options.setPodLog(namespace, pod, outcome.log);
    const message =
      outcome.digest === undefined
        ? ''
        : JSON.stringify({ 'containerimage.digest': outcome.digest, 'image.name': outcome.image });
    const terminated = { exitCode: outcome.ok ? 0 : 1, reason: outcome.ok ? 'Completed' : 'Error', message };
    await kube.mergePatchStatus('Pod', namespace, pod, {
      status: {
        phase: outcome.ok ? 'Succeeded' : 'Failed',
        containerStatuses: [{ name: container?.name ?? 'buildkit', state: { terminated } }],
      },
    });
    const now = new Date().toISOString();
    const condition = outcome.ok
      ? { type: 'Complete', status: 'True', lastTransitionTime: now }
      : {
          type: 'Failed',
          status: 'True',
          reason: 'BackoffLimitExceeded',
          message: 'Job has reached the specified backoff limit',
          lastTransitionTime: now,
        };
    await kube.mergePatchStatus('Job', namespace, name, {
      status: { active: 0, [outcome.ok ? 'succeeded' : 'failed']: 1, conditions: [condition] },
    });
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        const jobs = await kube.list('Job', namespace, { labelSelector: 'pharos.dev/build=true' });
        for (const job of jobs) {
          const key = `${job.metadata.name}/${job.metadata.uid ?? ''}`;
          const deleting = (job.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined;
          if (
            deleting ||
            seen.has(key) ||
            (job['status'] as { conditions?: unknown[] } | undefined)?.conditions?.length
          )
            continue;
          seen.add(key);
          const task = handle(job).catch(() => {});
          running.add(task);
          void task.finally(() => running.delete(task));
        }
      } catch {
        // the API server may be briefly unavailable in a test; try again
      }
      await new Promise((r) => setTimeout(r, options.pollMs ?? 50));
    }
  })();

  return {
    builds,
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...running]);
    },
  };
}
