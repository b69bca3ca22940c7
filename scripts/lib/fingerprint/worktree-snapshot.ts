import type { IndexEntries } from './git-index.ts';

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
