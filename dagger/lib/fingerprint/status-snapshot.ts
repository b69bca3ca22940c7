// The default working-tree snapshot: one `git status` process (git's own threads do the stat check and the
// untracked walk, as the user's `git status` does) beside the index file read here for the entries, the layout
// and the settings, which otherwise take `ls-files -s`, `rev-parse` and `config`. Refusals fall back to those.
import { resolve } from 'node:path';
import { gitPort } from '../ports/git.ts';
import { runGitStatus, snapshotFromGit } from './git-commands-snapshot.ts';
import type { GitWorktreeSnapshot } from './worktree-snapshot.ts';

export async function snapshotFromStatus(dir: string, stampNs: bigint | undefined): Promise<GitWorktreeSnapshot> {
  const status = runGitStatus(gitPort(dir)); // first: it is the longest part, and the modules below load beside it
  const [
    { readIndexFileEntries, sliceEntries },
    { IndexRefusal },
    { parseStatusRecords },
    { indexOfEntry, samePathAs },
    { DIRTY },
  ] = await Promise.all([
    import('./index-file-entries.ts'),
    import('./git-index.ts'),
    import('./status-records.ts'),
    import('./index-entries.ts'),
    import('./entry-state.ts'),
  ]);
  let read;
  try {
    read = readIndexFileEntries(dir);
  } catch (error) {
    if (!(error instanceof IndexRefusal)) {
      status.catch(() => undefined); // the error below is the one to report
      throw error;
    }
    return snapshotFromGit(dir, stampNs, error.message, status);
  }
  const { layout, all, from, to, ascii, config } = read;
  const { top, prefix, commonDir } = layout;
  const entries = sliceEntries(all, from, to, Buffer.byteLength(prefix));
  const result = await status;
  const records = parseStatusRecords(result.stdout, prefix);
  const state = new Uint8Array(entries.count);
  for (const path of records.dirty) {
    const key = Buffer.from(path);
    // conflicted paths repeat once per stage
    for (let i = indexOfEntry(entries, key); i >= 0 && i < entries.count && samePathAs(entries, i, key); i++)
      state[i] = DIRTY;
  }
  return {
    inside: true,
    prefix,
    top,
    attributesFile: resolve(commonDir, 'info', 'attributes'),
    config,
    entries,
    ascii,
    state,
    untracked: records.untracked,
    nested: records.nested,
    errors: result.code === 0 ? '' : result.stderr.toString().trim() || 'git status failed',
    stampNs,
    via: 'status',
  };
}
