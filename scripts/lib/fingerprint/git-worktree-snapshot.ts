import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { GitWorktreeSnapshot, IndexReaderSnapshot, WorktreeState } from './worktree-snapshot.ts';
import type { IndexSnapshotParts } from './index-snapshot.ts';
import { fsStampSync } from './local-state.ts';
import { snapshotFromGit } from './git-commands-snapshot.ts';
import { statusWorktreeState } from './status-snapshot.ts';

export type {
  GitCommandsSnapshot,
  GitWorktreeSnapshot,
  IndexReaderSnapshot,
  QuickIndexState,
  WorktreeState,
} from './worktree-snapshot.ts';

export type SnapshotVia = 'auto' | 'index' | 'status' | 'git';

const pending = new Map<string, Promise<WorktreeState>>();

/** The index reader's snapshot, or why it cannot take one. */
async function fromIndex(dir: string, stampNs: bigint | undefined): Promise<IndexReaderSnapshot | string> {
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
    errors: '',
    stampNs,
    via: 'index',
  };
}

const whole = (snapshot: GitWorktreeSnapshot): WorktreeState => ({
  quick: undefined,
  snapshot: async () => snapshot,
});

async function take(dir: string, via: SnapshotVia = 'auto'): Promise<WorktreeState> {
  const stampNs = existsSync(dir) ? fsStampSync(dir) : undefined;
  // The reader's own stat pass is opt-in (PHAROS_FINGERPRINT_INDEX=1): it gives the same entries and fingerprints,
  // but on the 2-core benchmark machine Node's lstat of every entry, in the command's own thread, costs more wall
  // time than `git status` on its threads beside the command's start-up (docs/benchmarks.md, issue 32).
  const useIndex = via === 'index' || (via === 'auto' && process.env.PHAROS_FINGERPRINT_INDEX === '1');
  if (!useIndex && via !== 'git') return statusWorktreeState(dir, stampNs);
  const direct = useIndex ? await fromIndex(dir, stampNs) : 'git commands asked for';
  if (typeof direct !== 'string') return whole(direct);
  if (via === 'index') throw new Error(direct);
  return whole(await snapshotFromGit(dir, stampNs, direct));
}

/** Starts reading the working tree early (say, while modules load): it is most of a warm run's time. */
export function prefetchGitSnapshot(dir: string): void {
  const key = resolve(dir);
  if (!pending.has(key)) pending.set(key, take(key));
}

/** The prefetched state of `dir` if any (used once: later calls see a fresh one), else a new one. */
export function gitWorktreeState(dir: string, via: SnapshotVia = 'auto'): Promise<WorktreeState> {
  const key = resolve(dir);
  const early = via === 'auto' ? pending.get(key) : undefined;
  if (early !== undefined) pending.delete(key);
  return early ?? take(key, via);
}

/** The whole snapshot of `dir` (the prefetched one if any). */
export async function gitSnapshot(dir: string, via: SnapshotVia = 'auto'): Promise<GitWorktreeSnapshot> {
  return (await gitWorktreeState(dir, via)).snapshot();
}
