import type { FileMode } from './file-mode.ts';

export interface SourceEntry {
  /** Relative to the source root, POSIX. */
  readonly path: string;
  readonly mode: FileMode;
}

export interface HashProgress {
  (done: { files: number; bytes: number }, total: { files: number; bytes: number }): void;
}

/** One interface over a commit's tree and a working tree, shared by fingerprint and check. */
export interface TreeSource {
  readonly kind: 'git' | 'worktree';
  /** `worktree`, or the 40-hex commit. */
  readonly id: string;
  /** The folder the paths are relative to. */
  readonly root: string;
  /** Bytes of a regular file, or undefined when the source has no such file. */
  readFile(path: string): Promise<Buffer | undefined>;
  /**
   * Regular files and symlinks at or under any prefix (`.` is everything), sorted bytewise; never `.local/`.
   * A submodule or nested repository at or under a path of `refuseNested` (default: the prefixes), or holding one,
   * is a `submodule` error, as an image input must be; anywhere else it is left out: it holds no file of this tree.
   */
  list(prefixes: readonly string[], refuseNested?: readonly string[]): Promise<SourceEntry[]>;
  /** SHA-256 hex of each entry's content as stored (a symlink's content is its target); fastest with list()'s own objects. */
  hash(entries: readonly SourceEntry[], progress?: HashProgress): Promise<string[]>;
  /**
   * A string that names the content under the prefixes exactly (a tree id; a clean index), or
   * undefined when there is none (a dirty working tree, files outside git, files that changed after git
   * looked, as hashing found): results keyed by it never go stale.
   */
  contentKey?(prefixes: readonly string[]): Promise<string | undefined>;
  /**
   * A key like contentKey's that costs no listing (a working tree: the index file's checksum, while git status
   * reports nothing there), but that any change to the index moves, wherever it is; results are remembered under
   * both, so this one answers a warm run and contentKey the run after an unrelated `git add`.
   */
  quickContentKey?(prefixes: readonly string[]): string | undefined;
  /**
   * For a save under the prefixes (a working tree): the quick key's index-file key, whatever git status reports
   * there, and the paths it reports, when every one of them is a change of bytes alone (same path, same mode).
   * Undefined for anything more (a deletion, an untracked file, a conflict, a converting filter, …).
   */
  changedBytesUnder?(prefixes: readonly string[]): ChangedBytes | undefined;
}

export interface ChangedBytes {
  readonly key: string;
  readonly changed: readonly string[];
}
