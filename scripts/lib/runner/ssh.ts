import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import type { RunnerProfile } from '../target/runner-profile.ts';
import { remoteCommand } from './shell-quote.ts';

/** The system ssh client's arguments: host keys always checked, never a prompt, a dead link noticed within ~15 s. */
export function sshArgs(runner: RunnerProfile, remote: readonly string[]): string[] {
  return [
    '-p',
    String(runner.port),
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'ConnectTimeout=10',
    '-o',
    'ServerAliveInterval=5',
    '-o',
    'ServerAliveCountMax=3',
    '-o',
    'LogLevel=ERROR',
    ...(runner.knownHosts === undefined
      ? []
      : ['-o', `UserKnownHostsFile=${runner.knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null']),
    ...(runner.identity === undefined ? [] : ['-i', runner.identity, '-o', 'IdentitiesOnly=yes']),
    '-l',
    runner.user,
    '--',
    runner.host,
    remoteCommand(remote),
  ];
}

export interface SshResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface SshCall {
  readonly runner: RunnerProfile;
  readonly remote: readonly string[];
  /** A file sent as the remote command's stdin; without it stdin stays open until the command ends, so the
   * runner can tell a dropped connection (its stdin closes) from a finished one. */
  readonly stdinFile?: string;
  /** Each stderr line as it arrives (the remote command's progress). */
  readonly line?: (text: string) => void;
  readonly ssh?: string;
  /** Called with the ssh process once started (tests use it). */
  readonly started?: (pid: number) => void;
}

export function runSsh(call: SshCall): Promise<SshResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(call.ssh ?? 'ssh', sshArgs(call.runner, call.remote), { stdio: ['pipe', 'pipe', 'pipe'] });
    if (child.pid !== undefined) call.started?.(child.pid);
    const out: Buffer[] = [];
    let err = '';
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      err += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) call.line?.(line);
    });
    child.stdin.on('error', () => {}); // ssh may exit before reading all of its input
    if (call.stdinFile !== undefined)
      createReadStream(call.stdinFile)
        .on('error', (e) => child.stdin.destroy(e))
        .pipe(child.stdin);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (partial !== '') call.line?.(partial);
      resolve({ code: code ?? (signal === null ? 1 : 255), stdout: Buffer.concat(out), stderr: err });
    });
  });
}

/** ssh's own failures exit 255: the link (retry) or the host key (never retry). */
export function sshFailure(result: SshResult): 'host-key' | 'connection' | undefined {
  if (result.code !== 255) return undefined;
  return /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No .* host key is known/.test(
    result.stderr,
  )
    ? 'host-key'
    : 'connection';
}
