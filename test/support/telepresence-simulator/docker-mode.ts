// The Telepresence SIMULATOR's Docker mode (`connect --docker`), with real Docker: the daemon is a container, named as
// Telepresence names it, and the simulated cluster is a Docker network whose Services are containers answering to
// their cluster DNS names. Where each behaviour comes from (docs/test-cluster.md "Telepresence simulator"):
// - telepresenceio/telepresence@01214f13:pkg/client/docker/daemon.go LaunchDaemon, DaemonOptions: `docker run --rm -d
//   --name <ContainerName> --network telepresence …`, the daemon's port published on loopback; a name already in use
//   is an error (the real CLI retries, then stops the old container: here it is refused).
// - telepresenceio/telepresence@09d9a26d:pkg/client/cli/daemon/identifier.go NewIdentifier, ContainerName: the
//   daemon's name is SafeName(`<context>-<namespace>-cn`), its container `tp-<name>`;
//   telepresenceio/telepresence@ebb90267:pkg/ioutil/safename.go SafeName.
// - telepresenceio/telepresence@ebb90267:pkg/client/rootd/dns/server_linux.go runOverridingServer: in a container the
//   daemon answers the container's DNS for cluster names; modelled by Docker's DNS on the cluster network, the
//   Services' aliases `<svc>.<ns>`, `<svc>.<ns>.svc`, `<svc>.<ns>.svc.cluster.local`, and the daemon container's
//   search list `<ns>.svc.cluster.local svc.cluster.local cluster.local` (a pod's), so `<svc>` resolves in the
//   connected namespace. The routes of the real VIF are modelled by attaching the daemon to the cluster network.
// - telepresenceio/telepresence@ebb90267:CHANGELOG.yml 2.18.0: "A quit (without -s) … will quit a container based
//   daemon"; `--rm` removes it.
// - telepresenceio/telepresence.io@e424a44:versioned_docs/version-2.22/reference/docker-run.md: a container shares
//   the daemon's network with `--network container:<name of containerized daemon>`; Docker itself refuses that for a
//   container that does not run, and refuses --publish and network aliases there.
import { readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { BASE_IMAGE, ensureBaseImage } from '../../../scripts/lib/demo/base-image.ts';

export const DAEMON_IMAGE = 'pharos-test/telepresence-simulator-daemon:local';
/** Finds what a simulator started (its home folder's path): Telepresence sets no such label, the tests' clean-up does. */
export const SIM_LABEL = 'pharos.test/telepresence-simulator';
const TUNNEL_PORT = 7070;

export const clusterServiceSchema = z.strictObject({
  namespace: z.string(),
  name: z.string(),
  /** What `GET /` answers. */
  body: z.string(),
  port: z.number().int().default(80),
});
export type ClusterService = z.input<typeof clusterServiceSchema>;

const dockerConfigSchema = z.strictObject({ network: z.string(), context: z.string(), image: z.string() });
export type DockerConfig = z.infer<typeof dockerConfigSchema>;

export function readDockerConfig(home: string): DockerConfig | undefined {
  try {
    return dockerConfigSchema.parse(JSON.parse(readFileSync(join(home, 'docker.json'), 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** pkg/ioutil/safename.go SafeName. */
export const safeName = (name: string): string =>
  [...name].map((c, i) => (/[A-Za-z0-9]/.test(c) ? c : i > 0 ? (/[_.-]/.test(c) ? c : '_') : 'a')).join('');

/** identifier.go: a containerized daemon's name, and its container `tp-<name>`. */
export const daemonName = (context: string, namespace: string): string => safeName(`${context}-${namespace}-cn`);

async function docker(args: string[]): Promise<string> {
  const result = await exec('docker', args, { timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`docker ${args[0]} failed: ${result.stderr.trim().split('\n').at(-1)}`);
  return result.stdout.toString('utf8').trim();
}

/** Built once per machine from the local busybox base: nothing is pulled. */
async function ensureDaemonImage(): Promise<void> {
  if ((await exec('docker', ['image', 'inspect', '--format', '{{.Id}}', DAEMON_IMAGE])).code === 0) return;
  await ensureBaseImage(BASE_IMAGE);
  const context = await mkdtemp(join(tmpdir(), 'pharos-tp-daemon-image-'));
  try {
    for (const file of ['Dockerfile', 'tunnel.sh'])
      await copyFile(join(import.meta.dirname, 'daemon-image', file), join(context, file));
    await docker(['build', '--quiet', '--tag', DAEMON_IMAGE, context]);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/** The simulated cluster's network and its Services' containers; written to `docker.json` for the CLI. */
export async function startDockerCluster(
  home: string,
  id: string,
  services: readonly ClusterService[],
): Promise<DockerConfig> {
  await ensureDaemonImage();
  const config: DockerConfig = { network: `pharos-tp-sim-${id}`, context: `sim-${id}`, image: DAEMON_IMAGE };
  await docker(['network', 'create', '--label', `${SIM_LABEL}=${home}`, config.network]);
  for (const raw of services) {
    const s = clusterServiceSchema.parse(raw);
    const names = [
      `${s.name}.${s.namespace}`,
      `${s.name}.${s.namespace}.svc`,
      `${s.name}.${s.namespace}.svc.cluster.local`,
    ];
    await docker([
      'run',
      '--detach',
      '--name',
      `${config.network}-${s.namespace}-${s.name}`,
      '--label',
      `${SIM_LABEL}=${home}`,
      '--network',
      config.network,
      ...names.flatMap((n) => ['--network-alias', n]),
      '--env',
      `BODY=${s.body}`,
      '--env',
      `PORT=${s.port}`,
      '--entrypoint',
      '/bin/sh',
      BASE_IMAGE,
      '-c',
      'mkdir -p /www && printf "%s\\n" "$BODY" > /www/index.html && exec busybox httpd -f -p "$PORT" -h /www',
    ]);
  }
  writeFileSync(join(home, 'docker.json'), JSON.stringify(config));
  return config;
}

/** `connect --docker`: the daemon container on the cluster network; its tunnel port on host loopback. */
export async function runDaemonContainer(
  home: string,
  config: DockerConfig,
  namespace: string,
): Promise<{ container: string; tunnel: number }> {
  const container = `tp-${daemonName(config.context, namespace)}`;
  await docker([
    'run',
    '--rm',
    '--detach',
    '--name',
    container,
    '--label',
    `${SIM_LABEL}=${home}`,
    '--network',
    config.network,
    ...[`${namespace}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local'].flatMap((d) => ['--dns-search', d]),
    '--publish',
    `127.0.0.1::${TUNNEL_PORT}`,
    config.image,
  ]);
  const published = await docker(['port', container, `${TUNNEL_PORT}/tcp`]);
  const port = /^127\.0\.0\.1:(\d+)$/m.exec(published)?.[1];
  if (port === undefined) throw new Error(`docker port ${container} printed ${JSON.stringify(published)}`);
  return { container, tunnel: Number(port) };
}

export async function containerRunning(container: string): Promise<boolean> {
  const result = await exec('docker', ['container', 'inspect', '--format', '{{.State.Running}}', container]);
  return result.code === 0 && result.stdout.toString('utf8').trim() === 'true';
}

/** `quit` ends a containerized daemon: it exits and `--rm` removes it. */
export async function removeDaemonContainer(container: string): Promise<void> {
  await exec('docker', ['rm', '--force', container]);
}

/** Everything a simulator home started on Docker: daemon and Service containers, then the network. */
export async function removeDockerCluster(home: string): Promise<void> {
  const ids = (await exec('docker', ['ps', '--all', '--quiet', '--filter', `label=${SIM_LABEL}=${home}`])).stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
  if (ids.length > 0) await exec('docker', ['rm', '--force', ...ids]);
  const config = readDockerConfig(home);
  if (config !== undefined) await exec('docker', ['network', 'rm', config.network]);
}
