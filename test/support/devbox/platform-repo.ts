// A temporary checkout of a platform repository (the example platform, or chosen paths of this repository) and the
// bare repository that stands for the in-cluster Git server.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { gitEnv } from '../../../scripts/lib/ports/git.ts';

const TOP = resolve(import.meta.dirname, '../../..');

export interface PlatformRepo {
  readonly dir: string;
  /** The bare repository standing for the in-cluster Git server. */
  readonly bare: string;
  git(...args: string[]): Promise<string>;
  /** Writes files (path → content; null deletes), commits, returns the commit. */
  commit(message: string, files: Readonly<Record<string, string | null>>): Promise<string>;
  remove(): Promise<void>;
}

/** What the platform repository holds: `paths` (files or folders, relative to `from`) copied, or all of `from`. */
export interface PlatformSource {
  readonly from: string;
  readonly paths?: readonly string[];
}

export const EXAMPLE_PLATFORM: PlatformSource = { from: join(TOP, 'examples/platform') };

/** This repository's delivery content: its GitOps tree, the pharos hooks' inputs and the database-admin image. */
export const TOOLKIT_PLATFORM: PlatformSource = {
  from: TOP,
  paths: [
    'gitops',
    'devops',
    'scripts',
    'docker/database-admin',
    'package.json',
    'package-lock.json',
    '.dockerignore',
    '.gitignore',
  ],
};

export async function makePlatformRepo(source: PlatformSource = EXAMPLE_PLATFORM): Promise<PlatformRepo> {
  const base = await mkdtemp(join(tmpdir(), 'pharos-platform-'));
  const dir = join(base, 'platform');
  const bare = join(base, 'cluster-git', 'platform.git');
  if (source.paths === undefined) await cp(source.from, dir, { recursive: true });
  else for (const path of source.paths) await cp(join(source.from, path), join(dir, path), { recursive: true });
  const env = gitEnv({
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 't@example.com',
  });
  const git = async (...args: string[]) =>
    (await execOk(exec, 'git', ['-C', dir, ...args], { env })).stdout.toString('utf8').trim();
  await execOk(exec, 'git', ['init', '--quiet', '--initial-branch=main', dir], { env });
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'platform');
  await execOk(exec, 'git', ['init', '--quiet', '--bare', bare], { env });
  return {
    dir,
    bare,
    git,
    async commit(message, files) {
      const { writeFile, mkdir, unlink } = await import('node:fs/promises');
      const { dirname } = await import('node:path');
      for (const [path, content] of Object.entries(files)) {
        const file = join(dir, path);
        if (content === null) await unlink(file);
        else {
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, content);
        }
      }
      await git('add', '-A');
      await git('commit', '--quiet', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    remove: () => rm(base, { recursive: true, force: true }),
  };
}
