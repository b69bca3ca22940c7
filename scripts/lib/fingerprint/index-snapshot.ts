// What `git ls-files -s` and `git status --porcelain=v2 --untracked-files=all` say about a folder, worked out
// without git: the index file read into typed arrays, each entry's stat data compared with lstat (git's
// ie_match_stat, racily clean and smudged entries decided by their content, as git's ie_modified does), and the
// folders walked in index order for untracked names. A folder whose names are exactly its index children (same
// count, every child present) holds nothing untracked: no name of it is decoded or looked up.
import { join } from 'node:path';
import type { IgnoreFile } from './gitignore.ts';
import { isIgnored } from './gitignore.ts';
import type { IndexEntries } from './git-index.ts';
import { lastValue, userPath, xdgConfig } from './git-repo-layout.ts';
import { readIndexFileEntries, sliceEntries } from './index-file-entries.ts';
import type { GitRepoLayout } from './git-repo-layout.ts';
import { readIgnoreFile } from './untracked-walk.ts';
import { walkIndexFolder } from './untracked-walk.ts';
import { foldersOf, runStatPass } from './stat-pass.ts';
import type { WalkContext } from './untracked-walk.ts';

export interface IndexSnapshotParts {
  readonly layout: GitRepoLayout;
  /** The entries under the folder, paths relative to it (what `ls-files -s -- .` lists). */
  readonly entries: IndexEntries;
  readonly ascii: boolean;
  /** Per entry of `entries`: CLEAN or DIRTY (entry-state.ts). */
  readonly state: Uint8Array;
  /** Untracked files and nested repositories, relative to the folder. */
  readonly untracked: readonly string[];
  readonly nested: readonly string[];
  /** `config -z --get-regexp` records of the settings that make disk bytes differ from blobs. */
  readonly config: string;
}

/** Throws IndexRefusal for what it does not model; the caller then runs git. */
export function takeIndexSnapshot(dir: string): IndexSnapshotParts {
  const { layout, index, all, indexStat, from, to, ascii, config: converting } = readIndexFileEntries(dir);
  const { top, prefix, commonDir, config } = layout;
  const prefixBytes = Buffer.from(prefix);
  const excludesFile = lastValue(config, 'core.excludesfile');
  const global: IgnoreFile[] = [];
  const info = readIgnoreFile(join(commonDir, 'info', 'exclude'), '', false);
  if (info !== undefined) global.push(info);
  const user = readIgnoreFile(
    typeof excludesFile === 'string' ? userPath(excludesFile) : xdgConfig('ignore'),
    '',
    false,
  );
  if (user !== undefined) global.push(user);
  // The ignore files of the folders above this one apply too; an ignored folder on the way hides everything in it.
  const chain: IgnoreFile[] = [];
  let hidden = false;
  let base = '';
  for (const part of prefix === '' ? [] : prefix.slice(0, -1).split('/')) {
    const file = readIgnoreFile(join(top, base, '.gitignore'), base, true);
    if (file !== undefined) chain.push(file);
    const path = `${base}${part}`;
    if (isIgnored(chain, global, path, part, true)) hidden = true; // git stops at an ignored folder, tracked or not
    base = `${path}/`;
  }
  const root = prefix === '' ? '' : prefix.slice(0, -1);
  const folders = foldersOf(all.paths, all.pathStart, from, to, root, ascii);
  const pass = runStatPass({
    topSlash: `${top}/`,
    paths: all.paths,
    pathStart: all.pathStart,
    from,
    to,
    ascii,
    folders,
  });
  const state = new Uint8Array(all.count);
  const untracked: string[] = [];
  const nested: string[] = [];
  const context: WalkContext = {
    index: all,
    view:
      index === undefined ? undefined : new DataView(index.data.buffer, index.data.byteOffset, index.data.byteLength),
    record: index?.record,
    extended: index?.extended,
    topSlash: `${top}/`,
    ascii,
    indexSec: indexStat === undefined ? 0 : Number(indexStat.mtimeNs / 1_000_000_000n),
    indexNsec: indexStat === undefined ? 0 : Number(indexStat.mtimeNs % 1_000_000_000n),
    state,
    global,
    cut: prefix.length,
    untracked,
    nested,
    pass,
    passFrom: from,
    folderIndex: new Map(folders.map((folder, k) => [folder, k])),
  };
  let here: readonly IgnoreFile[] | undefined; // the folder's own ignore file, read when a name needs it
  const own = (): readonly IgnoreFile[] => {
    if (here === undefined) {
      const file = readIgnoreFile(join(top, prefix, '.gitignore'), prefix, true);
      here = file === undefined ? chain : [...chain, file];
    }
    return here;
  };
  walkIndexFolder(context, from, to, prefixBytes.length, prefix, own, () => hidden);
  return {
    layout,
    entries: sliceEntries(all, from, to, prefixBytes.length),
    ascii,
    state: state.slice(from, to),
    untracked,
    nested,
    config: converting,
  };
}
