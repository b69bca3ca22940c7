// BuildKit simulator (no Kubernetes or BuildKit runs here): a test controller that watches the BuildKit Jobs in
// pharos-build, builds each with the REAL Docker Engine from the commit it names in the REAL local Git server,
// pushes to the REAL local registry, and completes the Job the way a finished `buildctl-daemonless.sh` does:
// the pod log holds the build output, the build container's termination message holds buildctl's metadata
// (with "containerimage.digest"), the Job gets a Complete or Failed condition.
import { spawn } from 'node:child_process';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { KubeObject } from '../../../scripts/lib/ports/kube-kinds.ts';
import { parseBuildctl } from './parse-buildctl.ts';
import type { BuildctlRequest } from './parse-buildctl.ts';

export interface BuildkitSimulatorOptions {
  readonly kube: Kube;
  readonly namespace: string;
  /** The in-cluster Git URL → the local bare repository it stands for. */
  readonly gitRepos: Readonly<Record<string, string>>;
  /** Where pod logs go (the test API server's `setPodLog`). */
  readonly setPodLog: (namespace: string, pod: string, text: string) => void;
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

/** `git archive <commit>:<subdir>` piped into `docker build -`, then `docker push`: what BuildKit does with a Git context. */
async function buildAndPush(request: BuildctlRequest, bare: string, job: string): Promise<Outcome> {
  const tree = request.subdir === '' ? request.commit : `${request.commit}:${request.subdir}`;
  const archive = spawn('git', ['-C', bare, 'archive', '--format=tar', tree], { stdio: ['ignore', 'pipe', 'pipe'] });
  let archiveErr = '';
  archive.stderr.on('data', (c: Buffer) => (archiveErr += c.toString()));
  const tag = `${request.imageName}:sim-${job}`;
  const args = ['build', '--quiet=false', '--force-rm', '-f', request.filename, '-t', tag];
  if (request.target !== undefined) args.push('--target', request.target);
  for (const [key, value] of request.buildArgs) args.push('--build-arg', `${key}=${value}`);
  if (request.platform !== undefined) args.push('--platform', request.platform);
  args.push('-');
  // The Engine's own builder: it uses the local base image and needs nothing from the internet.
  const built = await run('docker', args, { input: archive.stdout, env: { ...process.env, DOCKER_BUILDKIT: '0' } });
  let log = `#1 [git] ${request.gitUrl}#${tree}\n${archiveErr}${built.out}`;
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
          : await buildAndPush(request, bare, name);
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
