import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import type { ExecResult } from '../../scripts/lib/ports/exec.ts';
import { gitEnv } from '../../scripts/lib/ports/git.ts';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/** A real platform repository: a bare "remote" with main commits and tags, and a working clone to make them. */
export interface PlatformRepo {
  readonly root: string;
  /** The bare repository hosts and promote.ts talk to. */
  readonly remote: string;
  readonly work: string;
  git(args: readonly string[], cwd?: string): Promise<string>;
  /** Commits a file change on main and pushes it; returns the SHA. */
  commitOnMain(message: string): Promise<string>;
  tag(name: string, commit: string): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makePlatformRepo(): Promise<PlatformRepo> {
  const root = await mkdtemp(join(tmpdir(), 'hephaestus-platform-'));
  const remote = join(root, 'platform.git');
  const work = join(root, 'work');
  const env = gitEnv(IDENTITY);
  const git = async (args: readonly string[], cwd = work) =>
    (await execOk(exec, 'git', ['-C', cwd, ...args], { env })).stdout.toString('utf8').trim();
  await execOk(exec, 'git', ['init', '--quiet', '--bare', '--initial-branch=main', remote], { env });
  await execOk(exec, 'git', ['init', '--quiet', '--initial-branch=main', work], { env });
  await git(['remote', 'add', 'origin', remote]);
  let counter = 0;
  const repo: PlatformRepo = {
    root,
    remote,
    work,
    git,
    commitOnMain: async (message) => {
      counter += 1;
      await writeFile(join(work, 'VERSION'), `${message} ${counter}\n`);
      await git(['add', 'VERSION']);
      await git(['commit', '--quiet', '-m', message]);
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
      return git(['rev-parse', 'HEAD']);
    },
    tag: async (name, commit) => {
      await git(['tag', name, commit]);
      await git(['push', '--quiet', 'origin', `refs/tags/${name}`]);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
  return repo;
}

/** Runs one of the project's scripts with this Node, as an operator or the timer would. */
export async function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ExecResult & { out: string }> {
  const path = join(import.meta.dirname, '..', '..', 'scripts', script);
  // A shared compile cache keeps each process start short, as NODE_COMPILE_CACHE does on a host.
  const cache = { NODE_COMPILE_CACHE: join(tmpdir(), 'hephaestus-test-compile-cache') };
  const result = await exec(process.execPath, [path, ...args], { env: { ...process.env, ...cache, ...env } });
  return { ...result, out: result.stdout.toString('utf8') };
}

export function pinnedImages(seed: string): Record<string, string> {
  const hex = (s: string) => Buffer.from(s.padEnd(32, '0').slice(0, 32)).toString('hex');
  return {
    HEPHAESTUS_IMAGE_API: `ghcr.io/o/api@sha256:${hex(`${seed}api`)}`,
    HEPHAESTUS_IMAGE_WORKER: `ghcr.io/o/worker@sha256:${hex(`${seed}worker`)}`,
  };
}
