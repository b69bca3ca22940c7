import { spawn } from 'node:child_process';
import { ToolkitError } from '../errors/toolkit-error.ts';

export interface ExecOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly input?: string | Buffer;
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

export const exec: Exec = (command, args, options = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (cause) => {
      if (timer) clearTimeout(timer);
      reject(
        new ExecError('spawn-failed', `Cannot run "${command}": ${cause.message}`, { cause, details: { command } }),
      );
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) {
        reject(
          new ExecError(
            'timeout',
            `Cannot finish "${command} ${args.join(' ')}": timed out after ${options.timeoutMs} ms`,
            { details: { command, args } },
          ),
        );
        return;
      }
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.on('error', () => {}); // the child may exit before reading its input
    child.stdin.end(options.input ?? '');
  });

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
