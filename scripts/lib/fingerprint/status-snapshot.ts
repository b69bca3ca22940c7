// The default working-tree snapshot: one `git status` process (git's own threads do the stat check and the
// untracked walk, as the user's `git status` does) beside the index file read here for the entries, the layout
// and the settings, which otherwise take `ls-files -s`, `rev-parse` and `config`. Refusals fall back to those.
// The entries are parsed only when asked for: a warm run on a clean tree is answered by the index's checksum.
import { resolve } from 'node:path';
import { gitPort } from '../ports/git.ts';
import { runGitStatus, snapshotFromGit } from './git-commands-snapshot.ts';
import type { GitWorktreeSnapshot, WorktreeState } from './worktree-snapshot.ts';

export async function statusWorktreeState(dir: string, stampNs: bigint | undefined): Promise<WorktreeState> {
  const status = runGitStatus(gitPort(dir)); // first: it is the longest part, and the modules below load beside it
  const [{ indexChecksum, parseIndexFile, readIndexFile, sliceEntries }, { IndexRefusal }, { parseStatusRecords }] =
    await Promise.all([import('./index-file-entries.ts'), import('./git-index.ts'), import('./status-records.ts')]);
  let file;
  try {
    file = readIndexFile(dir);
  } catch (error) {
    // A layout the reader does not model, or no such folder at all: git's own commands answer, as they say it.
    const reason = error instanceof Error ? error.message : String(error);
    return { quick: undefined, snapshot: () => snapshotFromGit(dir, stampNs, reason, status) };
  }
  const { top, prefix, commonDir } = file.layout;
  const result = await status;
  const records = parseStatusRecords(result.stdout, prefix);
  const base = {
    prefix,
    top,
    attributesFile: resolve(commonDir, 'info', 'attributes'),
    config: file.config,
    errors: result.code === 0 ? '' : result.stderr.trim() || 'git status failed',
  };
  let whole: Promise<GitWorktreeSnapshot> | undefined;
  const parse = async (): Promise<GitWorktreeSnapshot> => {
    const [{ indexOfEntry, samePathAs }, { DIRTY }] = await Promise.all([
      import('./index-entries.ts'),
      import('./entry-state.ts'),
    ]);
    let parsed;
    try {
      parsed = parseIndexFile(file);
    } catch (error) {
      if (!(error instanceof IndexRefusal)) throw error;
      return snapshotFromGit(dir, stampNs, error.message, status);
    }
    const entries = sliceEntries(parsed.all, parsed.from, parsed.to, Buffer.byteLength(prefix));
    const state = new Uint8Array(entries.count);
    for (const path of records.dirty) {
      const key = Buffer.from(path);
      // conflicted paths repeat once per stage
      for (let i = indexOfEntry(entries, key); i >= 0 && i < entries.count && samePathAs(entries, i, key); i++)
        state[i] = DIRTY;
    }
    return {
      ...base,
      inside: true,
      entries,
      ascii: parsed.ascii,
      state,
      untracked: records.untracked,
      nested: records.nested,
      stampNs,
      via: 'status',
    };
  };
  const checksum = indexChecksum(file);
  return {
    quick:
      checksum === undefined
        ? undefined
        : {
            ...base,
            indexChecksum: checksum,
            reported: records.reported,
            modified: records.modified,
            staged: records.staged,
            stampNs,
          },
    snapshot: () => (whole ??= parse()),
  };
}
