import { createHash } from 'node:crypto';
import type { GitWorktreeSnapshot } from './git-worktree-snapshot.ts';
import { rangesAtOrUnder } from './sorted-paths.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { isLocalStatePath } from './local-state.ts';

interface IndexRecord {
  readonly path: string;
  /** The `ls-files -s` record's bytes in the snapshot's index buffer: mode, blob id, stage and path. */
  readonly start: number;
  readonly end: number;
}

/** `ls-files -s -z` records in index order (bytewise by path), as offsets into the buffer. */
function indexRecords(index: Buffer): IndexRecord[] {
  const out: IndexRecord[] = [];
  for (let at = 0; at < index.length; ) {
    let end = index.indexOf(0, at);
    if (end < 0) end = index.length;
    const tab = index.indexOf(9, at);
    if (tab > at && tab < end) out.push({ path: index.toString('utf8', tab + 1, end), start: at, end });
    at = end + 1;
  }
  return out;
}

/** Every path `status --porcelain=v2 -z` reports (relative to the folder); a nested repository ends in `/`. */
export function statusPaths(snapshot: GitWorktreeSnapshot): string[] {
  const out: string[] = [];
  for (const record of snapshot.status.toString('utf8').split('\0')) {
    const kind = record[0];
    const fields = record.split(' ');
    const full = kind === '?' || kind === '!' ? record.slice(2) : kind === '1' ? fields.slice(8).join(' ') : kind === 'u' ? fields.slice(10).join(' ') : kind === '2' ? fields.slice(9).join(' ') : undefined;
    if (full !== undefined && full.startsWith(snapshot.prefix)) out.push(full.slice(snapshot.prefix.length));
  }
  return out;
}

/**
 * Content keys for parts of a clean working tree: the `ls-files -s` records (blob ids and modes) at or
 * under some paths, when git reports nothing there (no change, no untracked file, no conflict). Such a
 * key names the bytes of every file under those paths, so a result remembered under it is never stale;
 * a change elsewhere in the tree leaves it as it was. Undefined where git reports anything.
 */
export function worktreeContentKeys(snapshot: GitWorktreeSnapshot): (prefixes: readonly string[]) => string | undefined {
  let records: IndexRecord[] | undefined;
  let reported: string[] | undefined;
  const digests = new Map<string, string>();
  const digestOf = (prefix: string): string => {
    let digest = digests.get(prefix);
    if (digest === undefined) {
      records ??= indexRecords(snapshot.index);
      const hash = createHash('sha256');
      for (const [start, end] of rangesAtOrUnder(records, prefix)) {
        for (let i = start; i < end; i++) {
          const r = records[i] as IndexRecord;
          if (!isLocalStatePath(r.path)) hash.update(snapshot.index.subarray(r.start, r.end + 1));
        }
      }
      digest = hash.digest('hex');
      digests.set(prefix, digest);
    }
    return digest;
  };
  return (prefixes) => {
    reported ??= statusPaths(snapshot).filter((p) => !isLocalStatePath(p));
    const touched = (path: string) => {
      const dir = path.endsWith('/') ? path.slice(0, -1) : undefined;
      return prefixes.some((p) => isAtOrUnder(dir ?? path, p) || (dir !== undefined && isAtOrUnder(p, dir)));
    };
    if (reported.some(touched)) return undefined;
    const parts = [...new Set(prefixes)].sort().map((p) => `${p}\0${digestOf(p)}`);
    return `git-index:${createHash('sha256').update(parts.join('\n')).digest('hex')}`;
  };
}
