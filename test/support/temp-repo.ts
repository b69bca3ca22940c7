import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';

/** A file to write: text, or text with a mode, or a symlink target. */
export type FileSpec =
  | string
  | { readonly content: string | Buffer; readonly exec?: boolean }
  | { readonly symlink: string };

export interface TempRepo {
  readonly dir: string;
  write(files: Readonly<Record<string, FileSpec>>): void;
  git(...args: string[]): string;
  commit(message?: string): string;
  remove(): void;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function writeFiles(dir: string, files: Readonly<Record<string, FileSpec>>): void {
  for (const [path, spec] of Object.entries(files)) {
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    rmSync(abs, { force: true, recursive: true });
    if (typeof spec === 'string') writeFileSync(abs, spec);
    else if ('symlink' in spec) symlinkSync(spec.symlink, abs);
    else {
      writeFileSync(abs, spec.content);
      chmodSync(abs, spec.exec ? 0o755 : 0o644);
    }
  }
}

/** A git repository in a temp folder (or a plain folder with `git: false`). */
export function tempRepo(files: Readonly<Record<string, FileSpec>> = {}, options: { git?: boolean } = {}): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-repo-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (options.git !== false) git('init', '-q', '-b', 'main');
  writeFiles(dir, files);
  return {
    dir,
    write: (more) => writeFiles(dir, more),
    git,
    commit(message = 'commit') {
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A catalogue text from entries written as plain objects. */
export function catalogueYaml(
  images: Record<string, Record<string, unknown>>,
  top: Record<string, unknown> = {},
): string {
  return JSON.stringify({ platform: 'linux/amd64', ...top, images }, null, 2);
}
