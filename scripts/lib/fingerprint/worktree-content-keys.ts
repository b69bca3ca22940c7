import { createHash } from 'node:crypto';
import type { GitWorktreeSnapshot, IndexReaderSnapshot } from './worktree-snapshot.ts';
import { gitTextContentKeys } from './git-text-content-keys.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { isLocalStatePath, LOCAL_DIR } from './local-state.ts';
import { entryRangesAtOrUnder } from './index-entries.ts';
import { CLEAN } from './entry-state.ts';

/** Runs [from, to) minus the runs in `skip` (both sorted). */
function without(runs: readonly (readonly [number, number])[], skip: readonly (readonly [number, number])[]) {
  const out: [number, number][] = [];
  for (const [from, to] of runs) {
    let at = from;
    for (const [skipFrom, skipTo] of skip) {
      if (skipTo <= at || skipFrom >= to) continue;
      if (skipFrom > at) out.push([at, skipFrom]);
      at = Math.max(at, skipTo);
    }
    if (at < to) out.push([at, to]);
  }
  return out;
}

/**
 * Content keys for parts of a clean working tree: the index entries (paths, modes, blob ids) at or under some
 * paths, when the snapshot reports nothing there (no change, no untracked file, no conflict). Such a key names
 * the bytes of every file under those paths, so a result remembered under it is never stale; a change elsewhere
 * in the tree leaves it as it was. Undefined where anything is reported.
 * Works on the typed arrays (index order is bytewise, and the entries under a folder are one run of them): a key
 * costs a few binary searches, a scan of one byte per entry and three hash updates per run, no string per file.
 */
export function worktreeContentKeys(
  snapshot: GitWorktreeSnapshot,
): (prefixes: readonly string[]) => string | undefined {
  return snapshot.via === 'git' ? gitTextContentKeys(snapshot) : readerContentKeys(snapshot);
}

function readerContentKeys(snapshot: IndexReaderSnapshot): (prefixes: readonly string[]) => string | undefined {
  const { entries, state } = snapshot;
  let local: readonly (readonly [number, number])[] | undefined;
  const runsOf = (prefix: string) => {
    local ??= entryRangesAtOrUnder(entries, LOCAL_DIR); // the toolkit's own state is never part of a file set, even if tracked
    return without(entryRangesAtOrUnder(entries, prefix), local);
  };
  const others = snapshot.untracked.filter((p) => !isLocalStatePath(p));
  const nested = snapshot.nested.filter((p) => !isLocalStatePath(p));
  const digests = new Map<string, string | undefined>();
  const digestOf = (prefix: string): string | undefined => {
    if (digests.has(prefix)) return digests.get(prefix);
    const hash = createHash('sha256');
    let clean = true;
    for (const [from, to] of runsOf(prefix)) {
      for (let i = from; i < to && clean; i++) if (state[i] !== CLEAN) clean = false;
      if (!clean) break;
      hash.update(entries.paths.subarray(entries.pathStart[from], entries.pathStart[to]));
      hash.update(new Uint8Array(entries.mode.buffer, entries.mode.byteOffset + from * 4, (to - from) * 4));
      hash.update(entries.oids.subarray(from * entries.oidBytes, to * entries.oidBytes));
    }
    const digest = clean ? hash.digest('hex') : undefined;
    digests.set(prefix, digest);
    return digest;
  };
  return (prefixes) => {
    const touched =
      others.some((path) => prefixes.some((p) => isAtOrUnder(path, p))) ||
      nested.some((dir) => prefixes.some((p) => isAtOrUnder(dir, p) || isAtOrUnder(p, dir)));
    if (touched) return undefined;
    const parts: string[] = [];
    for (const p of [...new Set(prefixes)].sort()) {
      const digest = digestOf(p);
      if (digest === undefined) return undefined;
      parts.push(`${p}\0${digest}`);
    }
    return `git-index:${createHash('sha256').update(parts.join('\n')).digest('hex')}`;
  };
}
