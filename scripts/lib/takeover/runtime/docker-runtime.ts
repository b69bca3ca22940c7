// The Docker runtime: builds the image from the working tree as the catalogue says, runs it with the workload's
// environment, and either shares the network of Telepresence's containerized daemon (`--network container:<daemon>`:
// cluster DNS and routes, the daemon reaches `takeover.port` on the shared loopback) or joins the takeover's own
// network with its Services' names as aliases and publishes `takeover.port` on loopback.
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ImageEntry } from '../../catalogue/catalogue.ts';
import { dockerBuildSpec } from '../../catalogue/docker-build-spec.ts';
import { repoPathOnDiskProblem } from '../../catalogue/repo-path-on-disk.ts';
import { LeaseError } from '../../ownership/lease-error.ts';
import { exec as realExec } from '../../ports/exec.ts';
import type { Exec } from '../../ports/exec.ts';
import type { LocalRuntime, RuntimeHandle, RuntimeRequest } from './local-runtime.ts';

export const RUNTIME_LABEL = 'pharos.dev/takeover-image';
/** The lease a container runs for (its id: acquire time and holder). */
export const LEASE_LABEL = 'pharos.dev/takeover-lease';
const BUILD_TIMEOUT_MS = 15 * 60_000;
// The docker CLI itself needs these: they are passed by value, every other variable by name only.
const CLI_VARIABLES = new Set([
  'PATH',
  'HOME',
  'DOCKER_HOST',
  'DOCKER_CONFIG',
  'DOCKER_CONTEXT',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const hostPortSchema = z.string().regex(/^127\.0\.0\.1:(\d{1,5})$/m);

function failure(request: RuntimeRequest, action: string, stderr: string, code: number): LeaseError {
  const tail = stderr.trim().split('\n').slice(-3).join(' / ');
  return new LeaseError(
    'runtime-failed',
    `Cannot ${action} image "${request.image}" with Docker: docker exited ${code}: ${tail}`,
    { details: { image: request.image } },
  );
}

export function imageTag(request: Pick<RuntimeRequest, 'image' | 'labels'>): string {
  const target = request.labels?.['pharos.dev/takeover-target'] ?? 'local';
  return `pharos-takeover/${target}/${request.image}:latest`.toLowerCase();
}

/** `docker build` arguments for a catalogue entry, from the checkout's working tree. */
export function buildArgs(request: RuntimeRequest, tag: string): string[] {
  const spec = dockerBuildSpec(request.entry!);
  const context = join(request.cwd, spec.context);
  const args = [
    'build',
    '--force-rm',
    '--file',
    join(context, spec.dockerfile),
    '--platform',
    spec.platform,
    '--tag',
    tag,
  ];
  if (spec.target !== undefined) args.push('--target', spec.target);
  for (const arg of spec.buildArgs) args.push('--build-arg', `${arg.name}=${arg.value}`);
  for (const [k, v] of Object.entries(request.labels ?? {})) args.push('--label', `${k}=${v}`);
  args.push(context);
  return args;
}

/** The container whose network namespace `--network container:<name>` shares; undefined for any other network. */
export const sharedContainer = (network: string | undefined): string | undefined =>
  network?.startsWith('container:') ? network.slice('container:'.length) : undefined;

/** `docker run` arguments; values of the workload's environment travel in the CLI's environment, not its argv. */
export function runArgs(request: RuntimeRequest, tag: string, name: string): string[] {
  const args = ['run', '--detach', '--name', name, '--label', `${RUNTIME_LABEL}=${request.image}`];
  for (const [k, v] of Object.entries({ ...request.labels, ...request.containerLabels }))
    args.push('--label', `${k}=${v}`);
  // A shared network namespace takes no aliases and publishes nothing (Docker refuses both): the daemon owns it.
  const shared = sharedContainer(request.network) !== undefined;
  if (request.network !== undefined) {
    args.push('--network', request.network);
    if (!shared) for (const alias of request.aliases ?? []) args.push('--network-alias', alias);
  }
  for (const [k, v] of Object.entries(request.env)) {
    if (!ENV_NAME.test(k)) continue;
    args.push('--env', CLI_VARIABLES.has(k) ? `${k}=${v}` : k);
  }
  if (request.port !== undefined && !shared)
    args.push('--publish', `127.0.0.1:${request.hostPort ?? ''}:${request.port}`);
  args.push(tag);
  return args;
}

/**
 * The build reads its context, Dockerfile and .dockerignore through the fingerprint's path rules: inside the checkout,
 * through no symlink, so a Dockerfile linked to a file outside (which the fingerprint would not see change) never builds.
 */
export async function checkBuildPaths(cwd: string, entry: ImageEntry): Promise<void> {
  const spec = dockerBuildSpec(entry);
  const dockerfile = spec.context === '.' ? spec.dockerfile : `${spec.context}/${spec.dockerfile}`;
  const why =
    (await repoPathOnDiskProblem(cwd, spec.context, 'directory')) ??
    (await repoPathOnDiskProblem(cwd, dockerfile, 'file')) ??
    (await repoPathOnDiskProblem(
      cwd,
      spec.context === '.' ? '.dockerignore' : `${spec.context}/.dockerignore`,
      'file',
      true,
    ));
  if (why !== undefined)
    throw new LeaseError('unsafe-build', `Cannot build image "${entry.name}" from the working tree: ${why}`, {
      details: { image: entry.name },
    });
}

export function dockerRuntime(run: Exec = realExec): LocalRuntime {
  /** undefined when the container no longer exists. */
  async function inspectRunning(id: string): Promise<boolean | undefined> {
    const result = await run('docker', ['container', 'inspect', '--format', '{{.State.Running}}', id]);
    return result.code === 0 ? result.stdout.toString('utf8').trim() === 'true' : undefined;
  }
  async function build(request: RuntimeRequest): Promise<string> {
    if (request.entry === undefined)
      throw new LeaseError(
        'runtime-failed',
        `Cannot run image "${request.image}" with Docker: no catalogue entry given`,
      );
    await checkBuildPaths(request.cwd, request.entry);
    const tag = imageTag(request);
    await appendFile(request.logFile, `takeover: docker ${buildArgs(request, tag).join(' ')}\n`);
    const built = await run('docker', buildArgs(request, tag), { timeoutMs: BUILD_TIMEOUT_MS });
    await appendFile(request.logFile, built.stdout.toString('utf8') + built.stderr);
    if (built.code !== 0) throw failure(request, 'build', built.stderr || built.stdout.toString('utf8'), built.code);
    return tag;
  }
  return {
    name: 'docker',
    prepare: async (request) => void (await build(request)),
    async start(request) {
      const tag = await build(request);
      const daemon = sharedContainer(request.network);
      if (daemon !== undefined) {
        // Docker would start the container and then fail to join a stopped one: refuse before anything runs.
        if ((await inspectRunning(daemon)) !== true)
          throw failure(request, 'run', `the container "${daemon}" whose network it shares is not running`, 1);
      } else if (request.network !== undefined) {
        const exists = await run('docker', ['network', 'inspect', '--format', '{{.Name}}', request.network]);
        if (exists.code !== 0) {
          const created = await run('docker', [
            'network',
            'create',
            '--label',
            'pharos.dev/takeover=true',
            request.network,
          ]);
          if (created.code !== 0 && !created.stderr.includes('already exists'))
            throw failure(request, 'create the network for', created.stderr, created.code);
        }
      }
      const name = `pharos-takeover-${request.labels?.['pharos.dev/takeover-target'] ?? 'local'}-${request.image}-${Date.now().toString(36)}`;
      // Journaled by name before it exists: a kill during or after `docker run` leaves a container recovery can name.
      await request.checkpoint?.('named', {
        image: request.image,
        runtime: 'docker',
        command: [tag],
        container: name,
        name,
      });
      const started = await run('docker', runArgs(request, tag, name), { env: { ...process.env, ...request.env } });
      if (started.code !== 0) throw failure(request, 'run', started.stderr, started.code);
      const container = started.stdout.toString('utf8').trim();
      await request.checkpoint?.('started', {
        image: request.image,
        runtime: 'docker',
        command: [tag],
        container,
        name,
      });
      // On the daemon's network the workload's port is the daemon's own loopback port: nothing is published.
      let hostPort = daemon === undefined ? undefined : request.port;
      if (request.port !== undefined && daemon === undefined) {
        const port = await run('docker', ['port', container, `${request.port}/tcp`]);
        const parsed = hostPortSchema.safeParse(port.stdout.toString('utf8').trim().split('\n')[0]);
        if (!parsed.success)
          throw failure(
            request,
            'publish the port of',
            `docker port printed ${JSON.stringify(port.stdout.toString('utf8').trim())}`,
            port.code,
          );
        hostPort = Number(/:(\d+)$/.exec(parsed.data)![1]);
      }
      // Its output joins the log file the native runtime writes; `docker logs --follow` ends with the container.
      const log = openSync(request.logFile, 'a');
      try {
        spawn('docker', ['logs', '--follow', container], { detached: true, stdio: ['ignore', log, log] }).unref();
      } finally {
        closeSync(log);
      }
      return {
        image: request.image,
        runtime: 'docker',
        container,
        name,
        command: [tag],
        ...(hostPort === undefined ? {} : { hostPort }),
        ...(daemon === undefined ? {} : { network: request.network }),
      };
    },
    async stop(handle: RuntimeHandle, graceMs = 5000) {
      if (handle.container === undefined) return false;
      // A container stopped but not removed (a crash between the two) still counts: it is removed now.
      if ((await inspectRunning(handle.container)) === undefined) return false;
      await run('docker', ['stop', '--time', String(Math.max(1, Math.ceil(graceMs / 1000))), handle.container]);
      await run('docker', ['rm', '--force', handle.container]);
      return true;
    },
    running: async (handle) => handle.container !== undefined && (await inspectRunning(handle.container)) === true,
    find: (lease) => findByLease(lease, run),
  };
}

/** Containers on this Docker engine labelled with the lease, running or stopped. */
export async function findByLease(lease: string, run: Exec = realExec): Promise<RuntimeHandle[]> {
  const format = `{{.ID}}\t{{.Names}}\t{{.Label "${RUNTIME_LABEL}"}}\t{{.Image}}`;
  const listed = await run('docker', [
    'ps',
    '--all',
    '--no-trunc',
    '--filter',
    `label=${LEASE_LABEL}=${lease}`,
    '--format',
    format,
  ]);
  if (listed.code !== 0) return [];
  return listed.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [container = '', name = '', image = '', tag = ''] = line.split('\t');
      return { image, runtime: 'docker', container, name, command: [tag] };
    });
}

/** Removes the takeover's network (its aliases go with it) once no container uses it; true when removed. */
export async function removeNetwork(network: string, run: Exec = realExec): Promise<boolean> {
  const result = await run('docker', ['network', 'rm', network]);
  return result.code === 0;
}
