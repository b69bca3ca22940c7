import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { exec as realExec } from './exec.ts';
import type { Exec, ExecResult } from './exec.ts';

/**
 * Pathspecs are literal and output is never paged or localised, whatever the user's config says; and no optional
 * lock: `git status` does not write its refreshed index, so it never holds `index.lock` against the user's own git
 * commands (a watcher runs it on every save), and a status ended by this process's exit leaves no lock behind.
 */
export function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_LITERAL_PATHSPECS: '1',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

export interface Git {
  readonly dir: string;
  run(args: readonly string[], input?: string | Buffer): Promise<ExecResult>;
  spawn(args: readonly string[]): ChildProcessWithoutNullStreams;
}

/** A machine without git (the Dagger module's runtime container) routes the default port elsewhere: docs/dagger.md. */
let routed: ((dir: string) => Git) | undefined;

export function routeGit(port: ((dir: string) => Git) | undefined): void {
  routed = port;
}

export function gitPort(dir: string, run: Exec = realExec): Git {
  if (routed !== undefined && run === realExec) return routed(dir);
  return {
    dir,
    run: (args, input) => run('git', ['-C', dir, ...args], { env: gitEnv(), input }),
    spawn: (args) => spawn('git', ['-C', dir, ...args], { env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] }),
  };
}
