import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { gitPort } from '../ports/git.ts';
import { fsStampSync } from './local-state.ts';

/** What git says about a working tree, taken in one round of parallel commands. */
export interface GitWorktreeSnapshot {
  readonly inside: boolean;
  /** The folder's path inside the repository: `` at the top, else `sub/dir/`. */
  readonly prefix: string;
  readonly top: string;
  readonly attributesFile: string;
  /** `git config -z --get-regexp` output for the settings that make disk bytes differ from blobs. */
  readonly config: string;
  /** `git ls-files -s -z -- .` (index order, relative to the folder). */
  readonly index: Buffer;
  /** `git status --porcelain=v2 -z --untracked-files=all -- .` (paths from the top). */
  readonly status: Buffer;
  readonly errors: string;
  /** The filesystem's clock before git looked (see fsStampSync), when `.local/` is writable. */
  readonly stampNs: bigint | undefined;
}

const pending = new Map<string, Promise<GitWorktreeSnapshot>>();

async function take(dir: string): Promise<GitWorktreeSnapshot> {
  const git = gitPort(dir);
  const stampNs = existsSync(dir) ? fsStampSync(dir) : undefined;
  const [revParse, config, index, status] = await Promise.all([
    git.run([
      'rev-parse',
      '--is-inside-work-tree',
      '--show-toplevel',
      '--git-path',
      'info/attributes',
      '--show-prefix',
    ]),
    git.run(['config', '-z', '--get-regexp', '^core\\.(filemode|symlinks|autocrlf|attributesfile)$']),
    git.run(['ls-files', '-s', '-z', '--', '.']),
    git.run([
      'status',
      '--porcelain=v2',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=none',
      '--',
      '.',
    ]),
  ]);
  const [inside, top = '', attributes = '', prefix = ''] = revParse.stdout.toString('utf8').split('\n');
  const ok = revParse.code === 0 && inside === 'true';
  return {
    inside: ok,
    prefix,
    top,
    attributesFile: resolve(dir, attributes),
    config: config.stdout.toString('utf8'),
    index: index.stdout,
    status: status.stdout,
    errors:
      ok && (index.code !== 0 || status.code !== 0) ? `${index.stderr}${status.stderr}`.trim() || 'git failed' : '',
    stampNs,
  };
}

/** Starts git's stat walk early (say, while modules load): it is most of a warm run's time. */
export function prefetchGitSnapshot(dir: string): void {
  const key = resolve(dir);
  if (!pending.has(key)) pending.set(key, take(key));
}

/** The prefetched snapshot of `dir` if any (used once: later calls see a fresh one), else a new one. */
export function gitSnapshot(dir: string): Promise<GitWorktreeSnapshot> {
  const key = resolve(dir);
  const early = pending.get(key);
  pending.delete(key);
  return early ?? take(key);
}
