// What `git status --porcelain=v2 -z --untracked-files=all` says under a folder: the entries that differ from the
// disk, the untracked files, and the untracked folders holding a repository of their own.
import { isAtOrUnder } from '../catalogue/repo-path.ts';

export interface StatusRecords {
  /** Tracked paths whose working-tree side differs from the index, or that are in conflict. */
  readonly dirty: readonly string[];
  readonly untracked: readonly string[];
  /** git lists an untracked folder holding a repository of its own as `dir/` and does not look inside it. */
  readonly nested: readonly string[];
  /** Every path a record names, of any kind (a change staged against HEAD too); a nested repository ends in `/`. */
  readonly reported: readonly string[];
  /**
   * Tracked files whose content alone differs from the index: a regular file or symlink, the same mode in the index
   * and on disk, no submodule, no conflict. Any other record means more than new bytes at a known path.
   */
  readonly modified: readonly string[];
  /** Tracked files that differ from HEAD in the index only: their bytes on disk are the index's. */
  readonly staged: readonly string[];
}

// A record's worktree side `M` with the index's mode kept: only the bytes changed (porcelain v2: `1 XY sub mH mI mW …`).
const CONTENT_MODES = new Set(['100644', '100755', '120000']);
const onlyContent = (fields: readonly string[]) =>
  fields[1]?.[1] === 'M' && fields[2] === 'N...' && fields[4] === fields[5] && CONTENT_MODES.has(fields[5] ?? '');

/** The records under `prefix` (porcelain v2 names paths from the top), paths relative to it. */
export function parseStatusRecords(status: Buffer, prefix: string): StatusRecords {
  const dirty: string[] = [];
  const untracked: string[] = [];
  const nested: string[] = [];
  const reported: string[] = [];
  const modified: string[] = [];
  const staged: string[] = [];
  for (const record of status.toString('utf8').split('\0')) {
    if (record === '') continue;
    const kind = record[0];
    const fields = record.split(' ');
    const full =
      kind === '?'
        ? record.slice(2)
        : kind === '1'
          ? fields.slice(8).join(' ')
          : kind === 'u'
            ? fields.slice(10).join(' ')
            : undefined;
    if (full === undefined || !full.startsWith(prefix)) continue;
    const path = full.slice(prefix.length);
    reported.push(path);
    if (kind === '?') {
      if (path.endsWith('/')) nested.push(path.slice(0, -1));
      else untracked.push(path);
    } else if (kind === 'u' || fields[1]?.[1] !== '.') dirty.push(path);
    if (kind === '1' && onlyContent(fields)) modified.push(path);
    if (kind === '1' && fields[1]?.[1] === '.') staged.push(path);
  }
  return { dirty, untracked, nested, reported, modified, staged };
}

/** Whether any reported path is at or under a prefix, or is a nested repository at, under or holding one. */
export function reportsUnder(reported: readonly string[], prefixes: readonly string[]): boolean {
  return reported.some((path) => {
    const dir = path.endsWith('/') ? path.slice(0, -1) : undefined;
    return prefixes.some((p) => isAtOrUnder(dir ?? path, p) || (dir !== undefined && isAtOrUnder(p, dir)));
  });
}
