// Dagger's Node runtime image (node:<version>-alpine) has no git, and the library reads commits and the index
// with git: the module routes the library's git port into a container it builds with the Dagger API.
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { dag, ReturnType } from '@dagger.io/dagger';
import type { Directory } from '@dagger.io/dagger';
import type { ExecResult } from '../lib/ports/exec.ts';
import type { Git } from '../lib/ports/git.ts';
import { routeGit } from '../lib/ports/git.ts';

/** The image git runs in: Alpine's git, the runtime's own distribution. */
export const GIT_IMAGE = 'docker.io/alpine/git:v2.49.1';
/** The settings the library's own port sets (ports/git.ts gitEnv): literal pathspecs, no pager, no prompt. */
const GIT_ENV: Record<string, string> = {
  GIT_LITERAL_PATHSPECS: '1',
  GIT_PAGER: 'cat',
  LC_ALL: 'C',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};
const OUT = '/.pharos-git-stdout';

/** Folders exported from a Directory in this process, by path: git sees the same Directory at the same path. */
const bound = new Map<string, Directory>();

function sourceOf(dir: string): { folder: string; directory: Directory } {
  for (const [folder, directory] of bound) {
    const rel = relative(folder, dir);
    if (rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep))) return { folder, directory };
  }
  throw new Error(`git -C ${dir}: the folder is not a source this function exported, so no container can see it`);
}

async function runInContainer(dir: string, args: readonly string[], input?: string | Buffer): Promise<ExecResult> {
  const { folder, directory } = sourceOf(dir);
  let ctr = dag.container().from(GIT_IMAGE).withMountedDirectory(folder, directory).withWorkdir(dir);
  for (const [name, value] of Object.entries(GIT_ENV)) ctr = ctr.withEnvVariable(name, value);
  // The mounted files belong to whoever the engine says: git must not refuse them as "dubious ownership".
  const exec = ctr.withExec(['git', '-c', 'safe.directory=*', '-C', dir, ...args], {
    ...(input === undefined ? {} : { stdin: input.toString('utf8') }),
    redirectStdout: OUT,
    expect: ReturnType.Any,
  });
  // Synced once: the fields below read that one run, not a chain each would evaluate again.
  const ran = await exec.sync();
  const [code, stderr] = await Promise.all([ran.exitCode(), ran.stderr()]);
  // stdout as a file, exported: blob contents are bytes, and a GraphQL string is not.
  const scratch = await mkdtemp(join(tmpdir(), 'pharos-git-out-'));
  try {
    await ran.file(OUT).export(join(scratch, 'stdout'));
    return { code, stderr, stdout: await readFile(join(scratch, 'stdout')) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A child process whose stdin is collected, then run in the container; stdout and stderr replay its answer. */
function spawnInContainer(dir: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  const child = new EventEmitter() as ChildProcessWithoutNullStreams;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const input: Buffer[] = [];
  let killed = false;
  Object.assign(child, { stdin, stdout, stderr, kill: () => ((killed = true), true) });
  stdin.on('data', (chunk: Buffer) => input.push(chunk));
  stdin.on('end', () => {
    runInContainer(dir, args, Buffer.concat(input)).then(
      (result) => {
        if (killed) return;
        stderr.end(result.stderr);
        stdout.end(result.stdout);
        stdout.on('end', () => child.emit('close', result.code, null));
        stdout.resume();
      },
      (error: Error) => child.emit('error', error),
    );
  });
  return child;
}

function containerGit(dir: string): Git {
  return {
    dir,
    run: (args, input) => runInContainer(dir, args, input),
    spawn: (args) => spawnInContainer(dir, args),
  };
}

/** Runs `work` with git routed into containers that see `directory` at `folder`. */
export async function withGitFor<T>(folder: string, directory: Directory, work: () => Promise<T>): Promise<T> {
  bound.set(folder, directory);
  routeGit(containerGit);
  try {
    return await work();
  } finally {
    bound.delete(folder);
    // Outside a function's source, git is the library's own again.
    if (bound.size === 0) routeGit(undefined);
  }
}
