// Benchmark of a host tick against real Docker Compose: (1) what an upgrade tick adds beyond `compose up` itself,
// (2) an unchanged tick as a ratio to `node -e 0`, both measured in this run. Prints ratios, asserts nothing.
import { spawnSync } from 'node:child_process';
import { makeHostLab } from '../support/host/host-lab.ts';

const UPGRADES = Number(process.env.BENCH_UPGRADES ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const lab = await makeHostLab();
try {
  const sets = [await lab.build('b0'), await lab.build('b1')];
  const first = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', first);
  await lab.publishLock('v1.0.0', first, sets[0] ?? {});
  await lab.promote('bench', ['--release', 'v1.0.0']);
  const host = await lab.host('bench');
  if ((await host.tick()).code !== 0) throw new Error('first install failed');

  const steps: Record<string, number[]> = {};
  const totals: number[] = [];
  for (let i = 1; i <= UPGRADES; i += 1) {
    const tag = `v1.${i}.0`;
    const commit = await lab.commit({ RELEASE: `${tag}\n` }, tag);
    await lab.tag(tag, commit);
    await lab.publishLock(tag, commit, sets[i % 2] ?? {});
    await lab.promote('bench', ['--release', tag]);
    const start = process.hrtime.bigint();
    const tick = await host.tick();
    totals.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (tick.code !== 0) throw new Error(`upgrade tick failed: ${tick.stderr}`);
    for (const line of tick.journal) {
      const [name] = line.split(' ');
      const ms = /\bms=(\d+)/.exec(line)?.[1];
      if (name !== undefined && ms !== undefined) (steps[name] ??= []).push(Number(ms));
    }
  }
  const up = median(steps.up ?? []);
  const total = median(totals);
  const composeStart = median(Array.from({ length: 5 }, () => timed('docker-compose', ['version', '--short'])));
  process.stdout.write(
    `upgrade tick (median of ${UPGRADES}): ${total.toFixed(0)} ms; compose up + healthy wait (baseline): ${up.toFixed(0)} ms\n`,
  );
  process.stdout.write(
    `  the tick adds ${(total - up).toFixed(0)} ms beyond up = ${((total - up) / up).toFixed(2)}x the up step\n`,
  );
  for (const [name, values] of Object.entries(steps))
    process.stdout.write(
      `  ${name.padEnd(12)} ${median(values).toFixed(0).padStart(6)} ms  (${(median(values) / up).toFixed(2)}x up)\n`,
    );
  process.stdout.write(
    `  one docker-compose process start: ${composeStart.toFixed(0)} ms (${(composeStart / up).toFixed(2)}x up); an upgrade starts 1 per stack to render, 1 to migrate, 1 per stack for the old worker, 1 to stop, 1 per stack to up\n`,
  );

  const env = host.env;
  const nodeBaseline = median(Array.from({ length: RUNS }, () => timed(process.execPath, ['-e', '0'])));
  const script = new URL('../../scripts/reconcile-deployment.ts', import.meta.url).pathname;
  timed(process.execPath, [script], env); // warm the compile cache
  const unchanged = median(Array.from({ length: RUNS }, () => timed(process.execPath, [script], env)));
  process.stdout.write(
    `unchanged tick (median of ${RUNS}): ${unchanged.toFixed(0)} ms = ${(unchanged / nodeBaseline).toFixed(1)}x \`node -e 0\` (${nodeBaseline.toFixed(0)} ms)\n`,
  );
  const journal = (await host.tick()).journal.map((l) => `${l.split(' ')[0]} ${/\bms=(\d+)/.exec(l)?.[1] ?? '-'} ms`);
  process.stdout.write(`  inside the process: ${journal.join(', ')}; the rest is process start and module loading\n`);
} finally {
  await lab.cleanup();
}
