import { spawn } from 'node:child_process';
import { ToolkitError } from '../errors/toolkit-error.ts';
import { killGroup, trackGroup } from './process-group.ts';

export interface ExecOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly input?: string | Buffer;
  /** Deadline of the whole process group (default DEFAULT_EXEC_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

export interface ExecResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs a program with an argument array (never a shell string) and collects its output. */
export type Exec = (command: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

export class ExecError extends ToolkitError<'spawn-failed' | 'timeout' | 'exit-status'> {}

/** A program that names no deadline still gets one: no external process may hold a command forever. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60 * 60_000;

/**
 * Runs `command` as the leader of its own process group. At the deadline the whole group is killed and its pipes are
 * closed without waiting for them, so a grandchild that keeps stdout open cannot hold the caller past the deadline.
 */
export const exec: Exec = (command, args, options = {}) =>
  new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const release = child.pid === undefined ? () => {} : trackGroup(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
      settle();
    };
    const timer = setTimeout(() => {
      if (child.pid !== undefined) killGroup(child.pid);
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
      finish(() =>
        reject(
          new ExecError(
            'timeout',
            `Cannot finish "${command} ${args.join(' ')}": no answer within ${formatSeconds(timeoutMs)}; its process group was killed`,
            { details: { command, args, timeoutMs } },
          ),
        ),
      );
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (cause) =>
      finish(() =>
        reject(
          new ExecError('spawn-failed', `Cannot run "${command}": ${cause.message}`, { cause, details: { command } }),
        ),
      ),
    );
    // 'close' waits for the pipes as well as the exit: output is complete only then (or the deadline ends it).
    child.on('close', (code, signal) =>
      finish(() =>
        resolve({
          code: code ?? (signal ? 128 : 1),
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err).toString('utf8'),
        }),
      ),
    );
    child.stdin.on('error', () => {}); // the child may exit before reading its input
    child.stdin.end(options.input ?? '');
  });

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Like `exec`, but a non-zero exit is an error that quotes the command's stderr. */
export async function execOk(
  run: Exec,
  command: string,
  args: readonly string[],
  options?: ExecOptions,
): Promise<ExecResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const stderr = result.stderr.trim().split('\n').slice(-3).join(' / ');
    throw new ExecError(
      'exit-status',
      `Command "${command} ${args.join(' ')}" failed with status ${result.code}: ${stderr}`,
      {
        details: { command, args, code: result.code, stderr: result.stderr },
      },
    );
  }
  return result;
}
