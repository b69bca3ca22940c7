import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface Timed {
  readonly median: number;
  readonly runs: number[];
}

/** Median wall time of `runs` calls; `before` runs untimed ahead of each call (cache resets, edits). */
export async function timeIt(
  fn: () => Promise<unknown> | unknown,
  options: { runs?: number; warmup?: number; before?: () => void } = {},
): Promise<Timed> {
  const runs: number[] = [];
  for (let i = 0; i < (options.warmup ?? 1); i++) {
    options.before?.();
    await fn();
  }
  for (let i = 0; i < (options.runs ?? 7); i++) {
    options.before?.();
    const start = performance.now();
    await fn();
    runs.push(performance.now() - start);
  }
  return timed(runs);
}

/** A function to time, with untimed work before each run of it (cache resets, edits). */
export interface Case {
  readonly fn: () => Promise<unknown> | unknown;
  readonly before?: () => void;
}

function timed(runs: number[]): Timed {
  const sorted = [...runs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, runs };
}

/** Medians of several functions timed round-robin (one run of each per round), so load drift hits them alike. */
export async function interleaved<const T extends readonly (Case | (() => Promise<unknown> | unknown))[]>(
  fns: T,
  options: { runs?: number; before?: () => void } = {},
): Promise<{ [K in keyof T]: Timed }> {
  const cases = fns.map((f) => (typeof f === 'function' ? { fn: f } : f));
  const runs: number[][] = cases.map(() => []);
  for (let round = -1; round < (options.runs ?? 7); round++) {
    for (const [i, c] of cases.entries()) {
      options.before?.();
      c.before?.();
      const start = performance.now();
      await c.fn();
      if (round >= 0) runs[i]?.push(performance.now() - start); // round -1 warms up
    }
  }
  return runs.map(timed) as { [K in keyof T]: Timed };
}

/** Runs a program to completion, failing loudly on a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** `a | b` without a shell: a's stdout feeds b's stdin; resolves when both have exited. */
export function pipe(a: [string, string[]], b: [string, string[]], cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const left = spawn(a[0], a[1], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    const right = spawn(b[0], b[1], { cwd, stdio: ['pipe', 'ignore', 'inherit'] });
    left.stdout.pipe(right.stdin);
    let open = 2;
    const done = (code: number | null) => {
      if (code !== 0) reject(new Error(`pipe failed with ${code}`));
      else if (--open === 0) resolve();
    };
    left.on('close', done);
    right.on('close', done);
  });
}

const range = (t: Timed) => `${Math.min(...t.runs).toFixed(0)}–${Math.max(...t.runs).toFixed(0)}`;

/** `<= 0.7x` and the like: whether the ratio meets it. */
function verdict(ratio: number, target: string): string {
  const m = /^(<=|<)\s*([\d.]+)x$/.exec(target.trim());
  if (m === null) return '';
  const limit = Number(m[2]);
  return (m[1] === '<=' ? ratio <= limit : ratio < limit) ? ' met' : ' NOT met';
}

/** One row: the ratio of medians, its target and verdict, then both medians with min–max of their runs. */
export function ratioLine(label: string, ours: Timed, base: Timed, baseLabel: string, target?: string): string {
  const ratio = ours.median / base.median;
  const t = target === undefined ? '' : `  (target ${target}:${verdict(ratio, target)})`;
  return `${label.padEnd(44)} ${ratio.toFixed(2)}x ${baseLabel}${t}   [${ours.median.toFixed(0)} ms (${range(ours)}) vs ${base.median.toFixed(0)} ms (${range(base)}), ${ours.runs.length} runs]`;
}
