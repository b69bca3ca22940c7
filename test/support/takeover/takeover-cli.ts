// Runs scripts/takeover.ts as a real process against a test target.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import type { TestTarget } from './test-target.ts';

const TOP = resolve(import.meta.dirname, '../../..');
export const NODE = join(TOP, 'node_modules/.bin/node');
export const TAKEOVER = join(TOP, 'scripts/takeover.ts');
const CRASH_RUNNER = join(TOP, 'test/support/takeover/crash-runner.ts');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function targetArgs(target: TestTarget, checkout = target.repo.dir): string[] {
  return ['--target', target.name, '--targets', target.targetsDir, '--repo', checkout];
}

export async function takeover(
  target: TestTarget,
  sub: string,
  extra: string[] = [],
  checkout?: string,
  env?: NodeJS.ProcessEnv,
): Promise<CliResult> {
  const result = await exec(NODE, [TAKEOVER, sub, ...targetArgs(target, checkout), ...extra], {
    timeoutMs: 120_000,
    ...(env === undefined ? {} : { env }),
  });
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

export interface RunningTakeover {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** Resolves when stderr has a line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number>;
}

const started = new Set<RunningTakeover>();

/** For afterAll: a failed test must not leave a takeover (and the runtime it started) behind. */
export async function stopAllTakeovers(): Promise<void> {
  for (const run of started) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) continue;
    run.child.kill('SIGCONT');
    run.child.kill('SIGTERM');
    await run.exited;
  }
  started.clear();
}

export function startTakeover(
  target: TestTarget,
  extra: string[] = [],
  checkout?: string,
  env?: NodeJS.ProcessEnv,
): RunningTakeover {
  const child = spawn(NODE, [TAKEOVER, 'start', ...targetArgs(target, checkout), ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env }),
  });
  let err = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    for (const w of [...waiters])
      if (w.pattern.test(err)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  child.stdout?.resume();
  const exited = new Promise<number>((done) => child.once('close', (code, signal) => done(code ?? (signal ? 128 : 1))));
  const run: RunningTakeover = {
    child,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      if (pattern.test(err)) return Promise.resolve();
      return new Promise((done, fail) => {
        const timer = setTimeout(
          () => fail(new Error(`takeover start never printed ${pattern}; stderr:\n${err}`)),
          timeoutMs,
        );
        waiters.push({ pattern, resolve: () => (clearTimeout(timer), done()) });
        void exited.then((code) =>
          fail(new Error(`takeover start exited ${code} before printing ${pattern}; stderr:\n${err}`)),
        );
      });
    },
  };
  started.add(run);
  return run;
}

/** Where a crashed takeover runs: the target's profile folder and name, and the checkout taking over. */
export interface CrashSite {
  readonly targetsDir: string;
  readonly target: string;
  readonly checkout: string;
}

/** A test target's crash site: its own checkout, unless another is named. */
export const crashSite = (target: TestTarget, checkout = target.repo.dir): CrashSite => ({
  targetsDir: target.targetsDir,
  target: target.name,
  checkout,
});

/**
 * crash-runner.ts in a process of its own: a takeover from `site.checkout`, SIGKILLed right after `step` is journaled
 * (exit 128 then); with `docker`, api on its Docker runtime through Telepresence (the simulator on `env`'s PATH).
 */
export async function crashTakeover(
  site: CrashSite,
  step: string,
  options: { readonly docker?: boolean; readonly env?: NodeJS.ProcessEnv; readonly timeoutMs: number },
): Promise<CliResult> {
  const args = [CRASH_RUNNER, site.targetsDir, site.target, site.checkout, step, ...(options.docker ? ['docker'] : [])];
  const result = await exec(NODE, args, {
    timeoutMs: options.timeoutMs,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}
