import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { gitPort } from '../ports/git.ts';
import { fsStampSync } from './local-state.ts';

/**
 * What git says about a working tree: from one round of parallel git commands, or, with
 * PHAROS_FINGERPRINT_INDEX=1, read from the index file directly (no git process, as `git status` reads it) unless
 * that reader refuses (a split or sparse index, GIT_DIR, config includes, …). Both give the same records.
 */
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
  /** `index` when read from the index file; `git` when git's commands answered, with the reader's reason. */
  readonly via: 'index' | 'git';
  readonly refusal?: string;
}

export type SnapshotVia = 'auto' | 'index' | 'git';

const pending = new Map<string, Promise<GitWorktreeSnapshot>>();

/** The index reader's snapshot, or why it cannot take one. */
async function fromIndex(dir: string, stampNs: bigint | undefined): Promise<GitWorktreeSnapshot | string> {
  const { takeIndexSnapshot } = await import('./index-snapshot.ts');
  try {
    const parts = takeIndexSnapshot(dir);
    const { top, prefix, commonDir } = parts.layout;
    return {
      inside: true,
      prefix,
      top,
      attributesFile: resolve(commonDir, 'info', 'attributes'),
      config: parts.config,
      index: parts.index,
      status: parts.status,
      errors: '',
      stampNs,
      via: 'index',
    };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function take(dir: string, via: SnapshotVia = 'auto'): Promise<GitWorktreeSnapshot> {
  const stampNs = existsSync(dir) ? fsStampSync(dir) : undefined;
  // The index reader is opt-in (PHAROS_FINGERPRINT_INDEX=1): it gives the same records, but its per-entry
  // JavaScript costs more CPU than git's own processes on a large tree (docs/benchmarks.md, issue 32).
  const useIndex = via === 'index' || (via === 'auto' && process.env.PHAROS_FINGERPRINT_INDEX === '1');
  const direct = useIndex ? await fromIndex(dir, stampNs) : 'the index reader is opt-in (PHAROS_FINGERPRINT_INDEX=1)';
  if (typeof direct !== 'string') return direct;
  if (via === 'index') throw new Error(direct);
  const git = gitPort(dir);
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
    via: 'git',
    refusal: direct,
  };
}

/** Starts git's stat walk early (say, while modules load): it is most of a warm run's time. */
export function prefetchGitSnapshot(dir: string): void {
  const key = resolve(dir);
  if (!pending.has(key)) pending.set(key, take(key));
}

/** The prefetched snapshot of `dir` if any (used once: later calls see a fresh one), else a new one. */
export function gitSnapshot(dir: string, via: SnapshotVia = 'auto'): Promise<GitWorktreeSnapshot> {
  const key = resolve(dir);
  const early = via === 'auto' ? pending.get(key) : undefined;
  if (early !== undefined) pending.delete(key);
  return early ?? take(key, via);
}
