// Test helper around the Telepresence SIMULATOR (cli.ts): a home folder, a `telepresence` executable on a bin
// folder to put first on PATH, the simulated cluster's Services (cluster-side.ts), its state and call log; with
// `docker`, the Docker network and Service containers `connect --docker` joins (docker-mode.ts).
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startClusterSide } from './cluster-side.ts';
import { removeDockerCluster, startDockerCluster } from './docker-mode.ts';
import type { ClusterService, DockerConfig } from './docker-mode.ts';
import { readState } from './state.ts';
import type { SimService, SimState } from './state.ts';

const TOP = resolve(import.meta.dirname, '../../..');
const NODE = join(TOP, 'node_modules/.bin/node');

export interface TelepresenceSimulator {
  readonly home: string;
  /** Put first on PATH: it holds the `telepresence` executable. */
  readonly bin: string;
  /** PATH and TELEPRESENCE_SIMULATOR_HOME for a child process. */
  readonly env: NodeJS.ProcessEnv;
  state(): SimState;
  /** Every CLI call's argv, oldest first. */
  calls(): Promise<string[][]>;
  /** The simulated cluster on Docker, when started with `docker`. */
  readonly docker?: DockerConfig;
  stop(): Promise<void>;
}

export interface SimulatorOptions {
  /** Services of the simulated cluster as containers on a Docker network, for `connect --docker`. */
  readonly docker?: { readonly services: readonly ClusterService[] };
}

export async function startTelepresenceSimulator(
  services: readonly SimService[],
  options: SimulatorOptions = {},
): Promise<TelepresenceSimulator> {
  const home = await mkdtemp(join(tmpdir(), 'pharos-17-telepresence-'));
  const bin = join(home, 'bin');
  await mkdir(bin);
  await writeFile(join(home, 'services.json'), JSON.stringify(services));
  const exe = join(bin, 'telepresence');
  await writeFile(exe, `#!/bin/sh\nexec "${NODE}" "${join(import.meta.dirname, 'cli.ts')}" "$@"\n`);
  await chmod(exe, 0o755);
  const cluster = await startClusterSide(home, services);
  const docker =
    options.docker === undefined
      ? undefined
      : await startDockerCluster(home, randomBytes(3).toString('hex'), options.docker.services);
  const env = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, TELEPRESENCE_SIMULATOR_HOME: home };
  return {
    home,
    bin,
    env,
    ...(docker === undefined ? {} : { docker }),
    state: () => readState(home),
    async calls() {
      const text = await readFile(join(home, 'calls.jsonl'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { argv: string[] }).argv);
    },
    async stop() {
      await Promise.all(cluster.map((server) => new Promise<void>((r) => server.close(() => r()))));
      try {
        const { pid } = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as { pid: number };
        process.kill(pid, 'SIGTERM');
      } catch {
        // never started, or already gone
      }
      if (docker !== undefined) await removeDockerCluster(home);
      await rm(home, { recursive: true, force: true });
    },
  };
}
