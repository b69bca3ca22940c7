// Benchmark: a whole `reconcile-deployment.ts --plan` process on an unchanged channel, as a ratio to `node -e 0` in the same run.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePlatformRepo, runScript } from '../support/platform-repo.ts';
import { writeKeyPair } from '../support/signing-keys.ts';
import { ratioLine } from './support/measure.ts';
import type { Timed } from './support/measure.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const script = join(import.meta.dirname, '..', '..', 'scripts', 'reconcile-deployment.ts');

function timed(runs: number[]): Timed {
  const sorted = [...runs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, runs };
}

function timeProcess(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  return ms;
}

function timeCommand(command: string, args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const repo = await makePlatformRepo();
const host = await mkdtemp(join(tmpdir(), 'hephaestus-bench-host-'));
try {
  const commit = await repo.commitOnMain('release');
  await repo.tag('v1.0.0', commit);
  const keys = writeKeyPair(repo.root, 'promote');
  const promoted = await runScript('promote.ts', [
    '--repo',
    repo.remote,
    '--env',
    'staging',
    '--release',
    'v1.0.0',
    '--key',
    keys.key,
    '--json',
  ]);
  if (promoted.code !== 0) throw new Error(promoted.stderr);
  const deployState = JSON.parse(promoted.out).deployStateCommit as string;
  const identity = spawnSync('git', ['-C', repo.remote, 'show', `${deployState}:channels/staging.json`]).stdout;
  const bundle = spawnSync('git', [
    '-C',
    repo.remote,
    'show',
    `${deployState}:channels/staging.json.sigstore.json`,
  ]).stdout;
  const { channelIdentity } = await import('../../scripts/lib/channel/channel-identity.ts');
  const applied = {
    schema: 2,
    release: 'v1.0.0',
    commit,
    channelCommit: deployState,
    channelVersion: 1,
    channelIdentity: channelIdentity(identity, bundle),
    appliedAt: new Date().toISOString(),
  };
  await writeFile(join(host, 'applied.json'), JSON.stringify(applied));
  const env = {
    HEPHAESTUS_CHANNEL: 'staging',
    HEPHAESTUS_REPOSITORY: repo.remote,
    HEPHAESTUS_TRUSTED_KEYS: keys.pub,
    HEPHAESTUS_ROOT: host,
    HEPHAESTUS_ETC: join(host, 'etc'),
  };
  const check = await runScript('reconcile-deployment.ts', ['--plan', '--json'], { ...env, NODE_COMPILE_CACHE: '' });
  if (!check.out.includes('"reason":"unchanged"'))
    throw new Error(`expected an unchanged plan, got ${check.out} ${check.stderr}`);
  const baseline: number[] = [];
  const plan: number[] = [];
  const planRuntime: number[] = [];
  const planCold: number[] = [];
  const fetches: number[] = [];
  const floor: number[] = [];
  const floorScript = join(import.meta.dirname, 'support', 'tick-library-floor.ts');
  // The floor of any tick that asks the server: `git fetch` of the unchanged remote into a clone that has it all.
  const clone = join(host, 'fetch-baseline.git');
  const cloned = spawnSync('git', ['clone', '--quiet', '--mirror', repo.remote, clone]);
  if (cloned.status !== 0) throw new Error(`git clone --mirror failed: ${cloned.stderr.toString()}`);
  const fetchArgs = ['-C', clone, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', 'origin'];
  // As the systemd unit runs it: NODE_COMPILE_CACHE set before start-up, so even type stripping of the entry is cached.
  const unit = { ...env, NODE_COMPILE_CACHE: join(host, 'cache', 'node-compile-cache') };
  for (let i = 0; i < RUNS; i += 1) {
    baseline.push(timeProcess(['-e', '0'], {}));
    plan.push(timeProcess([script, '--plan', '--json'], unit));
    planRuntime.push(timeProcess([script, '--plan', '--json'], env));
    planCold.push(timeProcess([script, '--plan', '--json'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }));
    fetches.push(timeCommand('git', fetchArgs));
    floor.push(timeProcess([floorScript], unit));
  }
  // Interleaved runs, so load from other processes on the machine hits all three alike.
  const base = timed(baseline);
  process.stdout.write(`plan: ${RUNS} interleaved runs, unchanged channel, key-signed, local deploy-state\n`);
  process.stdout.write(
    `${ratioLine('--plan (NODE_COMPILE_CACHE, as the unit sets)', timed(plan), base, 'node -e 0', '<= 3x')}\n`,
  );
  process.stdout.write(
    `${ratioLine('--plan (cache enabled by the script only)', timed(planRuntime), base, 'node -e 0')}\n`,
  );
  process.stdout.write(`${ratioLine('--plan without compile cache', timed(planCold), base, 'node -e 0')}\n`);
  process.stdout.write(
    `${ratioLine('--plan (NODE_COMPILE_CACHE) vs git fetch', timed(plan), timed(fetches), 'git fetch of the unchanged remote')}\n`,
  );
  process.stdout.write(`${ratioLine('  git fetch itself', timed(fetches), base, 'node -e 0')}\n`);
  // What no tick in one Node process can go below: Node, zod (the boundaries' validation) and sigstore's verifier.
  process.stdout.write(`${ratioLine('  floor: node + zod + sigstore-js, no work', timed(floor), base, 'node -e 0')}\n`);
} finally {
  await repo.cleanup();
  await rm(host, { recursive: true, force: true });
}
