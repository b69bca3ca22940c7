import type { IndexEntries } from './git-index.ts';

interface SnapshotBase {
  readonly inside: boolean;
  /** The folder's path inside the repository: `` at the top, else `sub/dir/`. */
  readonly prefix: string;
  readonly top: string;
  readonly attributesFile: string;
  /** `git config -z --get-regexp` output for the settings that make disk bytes differ from blobs. */
  readonly config: string;
  readonly errors: string;
  /** The filesystem's clock before git looked (see fsStampSync), when `.local/` is writable. */
  readonly stampNs: bigint | undefined;
  /** With git's commands: why the index reader did not answer. */
  readonly refusal?: string;
}

/** What git's own commands said: their output as it came (the default; searched in place, never parsed whole). */
export interface GitCommandsSnapshot extends SnapshotBase {
  readonly via: 'git';
  /** `git ls-files -s -z -- .` (index order, relative to the folder). */
  readonly index: Buffer;
  /** `git status --porcelain=v2 -z --untracked-files=all -- .` (paths from the top). */
  readonly status: Buffer;
}

/**
 * The index file's entries as typed arrays, no text in between, with what differs from the disk: by default as one
 * `git status` reports it (`status`), or worked out here with lstat (`index`, PHAROS_FINGERPRINT_INDEX=1).
 */
export interface IndexReaderSnapshot extends SnapshotBase {
  readonly via: 'index' | 'status';
  /** The index entries under the folder, paths relative to it (what `git ls-files -s -- .` lists), index order. */
  readonly entries: IndexEntries;
  /** Every entry path is ASCII: paths decode as latin1. */
  readonly ascii: boolean;
  /** Per entry: CLEAN or DIRTY (entry-state.ts). */
  readonly state: Uint8Array;
  /** Untracked files, relative to the folder. */
  readonly untracked: readonly string[];
  /** Untracked folders holding a repository of their own (git lists them as `dir/`), relative, no trailing `/`. */
  readonly nested: readonly string[];
}

/**
 * What git says about a working tree: by default the index file read here beside one `git status`; with
 * PHAROS_FINGERPRINT_INDEX=1, the index file alone (no git process, as `git status` reads it); where the index
 * reader refuses (a split or sparse index, GIT_DIR, config includes, …), one round of four git commands. All three
 * give the same listing.
 */
export type GitWorktreeSnapshot = GitCommandsSnapshot | IndexReaderSnapshot;

/**
 * What the default snapshot knows once `git status` has answered, before the index entries are parsed: enough for
 * one key of the whole index (a warm run on a clean tree needs no more).
 */
export interface QuickIndexState {
  readonly prefix: string;
  readonly top: string;
  readonly attributesFile: string;
  readonly config: string;
  readonly errors: string;
  /** The index file's own checksum (indexChecksum): it names every entry's path, mode and blob id. */
  readonly indexChecksum: string;
  /** Every path `git status` reports under the folder, relative to it; a nested repository ends in `/`. */
  readonly reported: readonly string[];
  /** The reported paths whose bytes alone changed, and those that differ from HEAD in the index only. */
  readonly modified: readonly string[];
  readonly staged: readonly string[];
  /** The filesystem's clock before git looked (see fsStampSync). */
  readonly stampNs: bigint | undefined;
}

/** A working tree as first seen: the quick state where there is one, the whole snapshot on demand (once). */
export interface WorktreeState {
  readonly quick: QuickIndexState | undefined;
  snapshot(): Promise<GitWorktreeSnapshot>;
}
