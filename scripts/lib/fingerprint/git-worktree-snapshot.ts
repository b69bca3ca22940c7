import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { IndexEntries } from './git-index.ts';
import type { IndexSnapshotParts } from './index-snapshot.ts';
import { fsStampSync } from './local-state.ts';

/**
 * What git says about a working tree: read from the index file directly (no git process, as `git status` reads
 * it), or, when that reader refuses (a split or sparse index, GIT_DIR, config includes, …), from one round of
 * parallel git commands. Both give the same entries and the same states.
 */
export interface GitWorktreeSnapshot {
  readonly inside: boolean;
  /** The folder's path inside the repository: `` at the top, else `sub/dir/`. */
  readonly prefix: string;
  readonly top: string;
  readonly attributesFile: string;
  /** `git config -z --get-regexp` output for the settings that make disk bytes differ from blobs. */
  readonly config: string;
  /** The index entries under the folder, paths relative to it (what `git ls-files -s -- .` lists), index order. */
  readonly entries: IndexEntries;
  /** Every entry path is ASCII: paths decode as latin1. */
  readonly ascii: boolean;
  /** Per entry: CLEAN, STAGED or DIRTY (entry-state.ts). */
  readonly state: Uint8Array;
  /** Untracked files (`?` records of `status --untracked-files=all`), relative to the folder. */
  readonly untracked: readonly string[];
  /** Untracked folders holding a repository of their own (git lists them as `dir/`), relative, no trailing `/`. */
  readonly nested: readonly string[];
  /** Paths git reports that no entry holds (a deletion staged against HEAD), relative to the folder. */
  readonly staged: readonly string[];
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
  let parts: IndexSnapshotParts;
  try {
    parts = takeIndexSnapshot(dir);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const { top, prefix, commonDir } = parts.layout;
  return {
    inside: true,
    prefix,
    top,
    attributesFile: resolve(commonDir, 'info', 'attributes'),
    config: parts.config,
    entries: parts.entries,
    ascii: parts.ascii,
    state: parts.state,
    untracked: parts.untracked,
    nested: parts.nested,
    staged: [],
    errors: '',
    stampNs,
    via: 'index',
  };
}

async function take(dir: string, via: SnapshotVia = 'auto'): Promise<GitWorktreeSnapshot> {
  const stampNs = existsSync(dir) ? fsStampSync(dir) : undefined;
  // PHAROS_FINGERPRINT_INDEX=0 asks git's own commands, as a refusal of the reader would.
  const useIndex = via === 'index' || (via === 'auto' && process.env.PHAROS_FINGERPRINT_INDEX !== '0');
  const direct = useIndex ? await fromIndex(dir, stampNs) : 'PHAROS_FINGERPRINT_INDEX=0 asks git';
  if (typeof direct !== 'string') return direct;
  if (via === 'index') throw new Error(direct);
  const { snapshotFromGit } = await import('./git-commands-snapshot.ts');
  return snapshotFromGit(dir, stampNs, direct);
}

/** Starts reading the working tree early (say, while modules load): it is most of a warm run's time. */
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
