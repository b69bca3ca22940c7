// Runs on the runner: one devbox command in the runner's own checkout, stopped when the workstation's connection
// drops (stdin closes), so the retried command resumes from the journal instead of racing a leftover one.
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { acquirePidLock } from '../ports/pid-lock.ts';
import { RunnerError } from './runner-error.ts';
import { runnerPaths } from './runner-paths.ts';

const DEVBOX = resolve(import.meta.dirname, '../../devbox.ts');
export const RUNNER_COMMANDS = ['reconcile', 'deploy'] as const;

async function lockRoot(file: string, waitMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await acquirePidLock(file);
    if (lock.held) return lock.release;
    if (Date.now() > deadline)
      throw new RunnerError('busy', `Cannot run on the runner: process ${lock.holder ?? '?'} holds "${file}"`, {
        exitCode: 3,
      });
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface RunnerRun {
  readonly root: string;
  readonly command: (typeof RUNNER_COMMANDS)[number];
  readonly target: string;
  readonly commit: string;
  readonly args: readonly string[];
  /** How long to wait for a command of a dropped connection to stop. */
  readonly waitMs?: number;
}

export async function runOnRunner(run: RunnerRun): Promise<number> {
  const paths = runnerPaths(run.root);
  await mkdir(paths.root, { recursive: true, mode: 0o700 });
  const release = await lockRoot(paths.lock, run.waitMs ?? 60_000);
  try {
    const args = [
      DEVBOX,
      run.command,
      '--target',
      run.target,
      '--targets',
      paths.targets,
      '--repo',
      paths.checkout,
      '--rev',
      run.commit,
      ...run.args,
    ];
    const child = spawn(process.execPath, args, { cwd: paths.checkout, stdio: ['ignore', 'inherit', 'inherit'] });
    const dropped = () => {
      process.stderr.write('devbox runner: the connection dropped; stopping the command (a retry resumes it)\n');
      child.kill('SIGTERM');
    };
    process.stdin.on('end', dropped);
    process.stdin.on('close', dropped);
    process.stdin.on('error', dropped);
    process.stdin.resume();
    return await new Promise<number>((done) =>
      child.on('close', (code, signal) => done(code ?? (signal === null ? 1 : 128))),
    );
  } finally {
    process.stdin.pause();
    process.stdin.removeAllListeners();
    process.stdin.destroy();
    await release();
  }
}
