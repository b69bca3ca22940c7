// Benchmark: what the SSH runner adds. A delivery where nothing changed, run through the runner (a real sshd on
// loopback: runner-have, bundle, runner-receive, runner-run, runner-receipt) as a ratio to the same command run
// locally, both as processes; and the size of an incremental bundle against a full one.
// Run: npx node test/bench/ssh-runner.bench.ts
import { cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml, stringify } from 'yaml';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { gitPort } from '../../scripts/lib/ports/git.ts';
import { createBundle } from '../../scripts/lib/runner/send-bundle.ts';
import { haveCommits } from '../../scripts/lib/runner/receive-bundle.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import { startTestSshd } from '../support/sshd/test-sshd.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const ROUNDS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const [box, sshd] = await Promise.all([startTestDevbox(), startTestSshd()]);
try {
  const root = join(box.targetsDir, '..', 'runner');
  await mkdir(join(root, 'targets'), { recursive: true });
  await cp(join(box.targetsDir, `${box.target}.yaml`), join(root, 'targets', `${box.target}.yaml`));
  const file = join(box.targetsDir, `${box.target}.yaml`);
  const profile = parseYaml(await readFile(file, 'utf8')) as Record<string, unknown>;
  profile['runner'] = {
    host: '127.0.0.1',
    port: sshd.port,
    user: sshd.user,
    identity: sshd.identity,
    knownHosts: sshd.knownHosts,
    toolkit: TOP,
    root,
  };
  await writeFile(file, stringify(profile));
  const run = async (extra: string[]) => {
    const started = performance.now();
    const result = await exec(
      NODE,
      [
        join(TOP, 'scripts/devbox.ts'),
        'reconcile',
        '--target',
        box.target,
        '--targets',
        box.targetsDir,
        '--repo',
        box.repo.dir,
        ...extra,
      ],
      { timeoutMs: 300_000 },
    );
    if (result.code !== 0) throw new Error(result.stderr);
    return performance.now() - started;
  };
  await run(['--runner']); // builds everything through the runner, not measured
  await run([]); // the local checkout's blob cache, not measured
  const local: number[] = [];
  const remote: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    local.push(await run([]));
    remote.push(await run(['--runner']));
  }
  const git = gitPort(box.repo.dir);
  const head = (await git.run(['rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
  const commit = await box.repo.commit('one more file', { 'docs/bench.md': 'x\n' });
  const full = await createBundle(git, commit, []);
  const incremental = await createBundle(git, commit, await haveCommits(root));
  const [fullSize, incSize] = [(await stat(full.file)).size, (await stat(incremental.file)).size];
  await Promise.all([full.remove(), incremental.remove()]);
  process.stdout.write(
    `no-change reconcile, medians of ${ROUNDS}: local ${median(local).toFixed(0)} ms, through the runner ${median(remote).toFixed(0)} ms: ratio ${(median(remote) / median(local)).toFixed(2)}x\n`,
  );
  process.stdout.write(
    `bundle of one new commit after ${head.slice(0, 12)}: full ${fullSize} bytes, incremental ${incSize} bytes (${((100 * incSize) / fullSize).toFixed(1)}%)\n`,
  );
} finally {
  await Promise.allSettled([box.stop(), sshd.stop()]);
}
