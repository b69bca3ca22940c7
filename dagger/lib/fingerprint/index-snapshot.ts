// What `git ls-files -s` and `git status --porcelain=v2 --untracked-files=all` say about a folder, worked out
// without git: the index file read into typed arrays, each entry's stat data compared with lstat (git's
// ie_match_stat, racily clean and smudged entries decided by their content, as git's ie_modified does), and the
// folders walked in index order for untracked names. A folder whose names are exactly its index children (same
// count, every child present) holds nothing untracked: no name of it is decoded or looked up.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isAscii } from 'node:buffer';
import type { IgnoreFile } from './gitignore.ts';
import { isIgnored } from './gitignore.ts';
import { parseGitIndex } from './git-index.ts';
import type { GitIndex, IndexEntries } from './git-index.ts';
import { lowerBound } from './index-entries.ts';
import { findGitRepo, lastValue, userPath, xdgConfig } from './git-repo-layout.ts';
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

const EMPTY: IndexEntries = {
  count: 0,
  paths: Buffer.alloc(0),
  pathStart: new Uint32Array(1),
  mode: new Uint32Array(0),
  stage: new Uint8Array(0),
  oids: Buffer.alloc(0),
  oidBytes: 20,
};

function convertingConfig(layout: GitRepoLayout): string {
  const keys = new Set(['core.filemode', 'core.symlinks', 'core.autocrlf', 'core.attributesfile']);
  return layout.config
    .filter((item) => keys.has(item.key))
    .map((item) => (item.value === null ? `${item.key}\0` : `${item.key}\n${item.value}\0`))
    .join('');
}

/** Entries [from, to) with `cut` leading path bytes removed: a folder's own view of the index. */
function sliceEntries(index: IndexEntries, from: number, to: number, cut: number): IndexEntries {
  if (from === 0 && to === index.count && cut === 0) return index;
  const count = to - from;
  const base = index.pathStart[from] as number;
  const pathStart = new Uint32Array(count + 1);
  const paths = Buffer.allocUnsafe(Math.max(1, (index.pathStart[to] as number) - base - count * cut));
  let w = 0;
  for (let i = 0; i < count; i++) {
    w += index.paths.copy(paths, w, (index.pathStart[from + i] as number) + cut, index.pathStart[from + i + 1]);
    pathStart[i + 1] = w;
  }
  return {
    count,
    paths: paths.subarray(0, w),
    pathStart,
    mode: index.mode.slice(from, to),
    stage: index.stage.slice(from, to),
    oids: Buffer.from(index.oids.subarray(from * index.oidBytes, to * index.oidBytes)),
    oidBytes: index.oidBytes,
  };
}

/** Throws IndexRefusal for what it does not model; the caller then runs git. */
export function takeIndexSnapshot(dir: string): IndexSnapshotParts {
  const layout = findGitRepo(dir);
  const { top, prefix, gitDir, commonDir, config } = layout;
  const indexFile = join(gitDir, 'index');
  const indexStat = statSync(indexFile, { bigint: true, throwIfNoEntry: false });
  const oidBytes = lastValue(config, 'extensions.objectformat') === 'sha256' ? 32 : 20;
  const index: GitIndex | undefined =
    indexStat === undefined ? undefined : parseGitIndex(readFileSync(indexFile), oidBytes);
  const all = index ?? { ...EMPTY, oidBytes };
  const prefixBytes = Buffer.from(prefix);
  const from = prefix === '' ? 0 : lowerBound(all, prefixBytes);
  const to = prefix === '' ? all.count : lowerBound(all, Buffer.from(`${prefix.slice(0, -1)}0`), from); // '0' follows '/'
  // Paths of plain ASCII (the common case) decode as latin1, several times faster than UTF-8 and the same string.
  const ascii = isAscii(all.paths);
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
    config: convertingConfig(layout),
  };
}
