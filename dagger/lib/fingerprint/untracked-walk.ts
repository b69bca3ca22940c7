// The working tree against the index, folder by folder in index order, as git's status does: each entry's stat
// data compared with lstat (refresh_cache_ent), each folder's names read once for what is untracked (read_directory),
// a folder's ignore file read only when one of its names is untracked.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gitDirOf } from './git-repo-layout.ts';
import { isIgnored, parseIgnoreFile } from './gitignore.ts';
import type { IgnoreFile } from './gitignore.ts';
import { CTIME_NS, CTIME_S, EXT_INTENT_TO_ADD, GID, INO, MTIME_NS, MTIME_S, SIZE, UID } from './git-index.ts';
import type { IndexEntries } from './git-index.ts';
import { CLEAN, DIRTY } from './entry-state.ts';
import { FAILED, FILE, FOLDER, NONE, STAT_FIELDS, SYMLINK } from './stat-pass.ts';
import type { StatPassOutput } from './stat-pass.ts';

/**
 * An ignore file's patterns, or undefined when there is none. In the working tree a symlinked `.gitignore` is not
 * followed, as git (2.32 and later) does not; info/exclude and core.excludesFile are read wherever they point.
 */
export function readIgnoreFile(path: string, base: string, inTree: boolean): IgnoreFile | undefined {
  try {
    if (inTree && !lstatSync(path).isFile()) return undefined;
    const file = parseIgnoreFile(readFileSync(path, 'utf8'), base);
    return file.patterns.length === 0 ? undefined : file;
  } catch {
    return undefined;
  }
}

/** git's is_nonbare_repository_dir: the folder holds a `.git` folder or `gitdir:` file naming a git dir. */
export function isNestedRepo(dir: string): boolean {
  try {
    return gitDirOf(join(dir, '.git')) !== undefined;
  } catch {
    return false;
  }
}

export interface WalkContext {
  readonly index: IndexEntries;
  /** The index file's bytes and each entry's record offset in it (undefined without an index file). */
  readonly view: DataView | undefined;
  readonly record: Uint32Array | undefined;
  readonly extended: Uint16Array | undefined;
  readonly topSlash: string;
  readonly ascii: boolean;
  /** The index file's mtime: an entry modified in that clock tick or later is racily clean (git's is_racy_stat). */
  readonly indexSec: number;
  readonly indexNsec: number;
  /** Per index entry: CLEAN or DIRTY, written by the walk. */
  readonly state: Uint8Array;
  readonly global: readonly IgnoreFile[];
  /** Characters of the folder's prefix cut from the paths reported. */
  readonly cut: number;
  readonly untracked: string[];
  readonly nested: string[];
  /** The system calls' results (stat-pass.ts) for entries from `passFrom` on, and each folder's place in them. */
  readonly pass: StatPassOutput;
  readonly passFrom: number;
  readonly folderIndex: ReadonlyMap<string, number>;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const GITLINK = 0o160000;
const u32 = (n: number) => n >>> 0;
// Node's Stats carry times as milliseconds computed this way: the index's seconds and nanoseconds, put through
// the same arithmetic, compare equal exactly when the timestamps agree (to well under a kernel clock tick).
const ms = (sec: number, nsec: number) => sec * 1000 + nsec / 1e6;

/** The entry's stat, or undefined when nothing is there (a file where a folder of its path was: ENOTDIR). */
function lstatOrNone(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Whether the bytes on disk are entry i's blob: git's ce_modified_check_fs, for racily clean and smudged entries. */
function sameBlob(c: WalkContext, i: number, path: string, symlink: boolean): boolean {
  let bytes: Buffer;
  try {
    bytes = symlink ? readlinkSync(path, { encoding: 'buffer' }) : readFileSync(path);
  } catch {
    return false;
  }
  const n = c.index.oidBytes;
  const digest = createHash(n === 20 ? 'sha1' : 'sha256')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest();
  return c.index.oids.compare(digest, 0, n, i * n, (i + 1) * n) === 0;
}

/**
 * CLEAN when the disk holds entry i's content unchanged (ie_match_stat, then ie_modified's content check), from
 * its lstat at `s[at…]` (stat-pass.ts).
 */
function entryState(c: WalkContext, i: number, path: () => string, s: Float64Array, at: number): number {
  const d = c.view as DataView;
  const record = (c.record as Uint32Array)[i] as number;
  const mode = c.index.mode[i] as number;
  const kind = s[at];
  const diskMode = s[at + 1] as number;
  if ((mode & S_IFMT) === S_IFLNK ? kind !== SYMLINK : kind !== FILE || ((mode ^ diskMode) & 0o100) !== 0) return DIRTY;
  if (((c.extended as Uint16Array)[i] ?? 0) & EXT_INTENT_TO_ADD) return DIRTY;
  const size = d.getUint32(record + SIZE);
  const mtimeSec = d.getUint32(record + MTIME_S);
  const mtimeNsec = d.getUint32(record + MTIME_NS);
  const matches =
    size === u32(s[at + 2] as number) &&
    s[at + 3] === ms(mtimeSec, mtimeNsec) &&
    s[at + 4] === ms(d.getUint32(record + CTIME_S), d.getUint32(record + CTIME_NS)) &&
    d.getUint32(record + INO) === u32(s[at + 5] as number) &&
    d.getUint32(record + UID) === u32(s[at + 6] as number) &&
    d.getUint32(record + GID) === u32(s[at + 7] as number);
  // A size of 0 is git's mark for "never stat'ed" or a smudged racy entry: only the content can tell.
  if (!matches && size !== 0) return DIRTY;
  const racy = mtimeSec > c.indexSec || (mtimeSec === c.indexSec && mtimeNsec >= c.indexNsec);
  if (matches && !racy) return CLEAN;
  return sameBlob(c, i, path(), kind === SYMLINK) ? CLEAN : DIRTY;
}

/** Whether entries a and b have the same path (conflict stages repeat it). */
function samePath(index: IndexEntries, a: number, b: number): boolean {
  const as = index.pathStart[a] as number;
  const bs = index.pathStart[b] as number;
  const length = (index.pathStart[a + 1] as number) - as;
  return (
    (index.pathStart[b + 1] as number) - bs === length &&
    index.paths.compare(index.paths, as, as + length, bs, bs + length) === 0
  );
}

type Lazy<T> = () => T;
const lazy = <T>(make: () => T): Lazy<T> => {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
};

/** An untracked folder: every name in it is untracked unless ignored; a repository of its own is listed as such. */
function walkUntracked(c: WalkContext, rel: string, lists: readonly IgnoreFile[]): void {
  let names: string[];
  try {
    names = readdirSync(c.topSlash + rel.slice(0, -1));
  } catch {
    return;
  }
  const own = names.includes('.gitignore') ? readIgnoreFile(`${c.topSlash}${rel}.gitignore`, rel, true) : undefined;
  const here = own === undefined ? lists : [...lists, own];
  for (const name of names) if (name !== '.git') untrackedName(c, rel + name, name, here);
}

/** One name no index entry accounts for. */
function untrackedName(c: WalkContext, path: string, name: string, lists: readonly IgnoreFile[]): void {
  const st = lstatOrNone(c.topSlash + path);
  if (st === undefined) return;
  if (st.isDirectory()) {
    if (isIgnored(lists, c.global, path, name, true)) return;
    if (isNestedRepo(c.topSlash + path)) c.nested.push(path.slice(c.cut));
    else walkUntracked(c, `${path}/`, lists);
  } else if ((st.isFile() || st.isSymbolicLink()) && !isIgnored(lists, c.global, path, name, false)) {
    c.untracked.push(path.slice(c.cut));
  }
}

/**
 * The index entries [from, to), all under the folder `rel` (`` or `a/b/`, `dirBytes` long), against the disk:
 * sets each entry's state and collects the folder's untracked names. Returns nothing; a child folder found not to
 * be a folder (gone, a file, a symlink: git's has_symlink_leading_path) has every entry under it DIRTY.
 */
export function walkIndexFolder(
  c: WalkContext,
  from: number,
  to: number,
  dirBytes: number,
  rel: string,
  chain: Lazy<readonly IgnoreFile[]>,
  excluded: Lazy<boolean>,
): void {
  const { index, state } = c;
  const paths = index.paths;
  const encoding = c.ascii ? 'latin1' : 'utf8';
  const s = c.pass.stats;
  const folder = c.folderIndex.get(rel.slice(0, -1)) ?? -1;
  if (folder < 0 || c.pass.folderKind[folder] === FAILED) throw new Error(`cannot read the folder "${rel}"`);
  let children = 0;
  let allPresent = true;
  // First pass: no child name is decoded but a file's path (for lstat) and a folder's name (to go into it).
  for (let i = from; i < to; ) {
    const start = (index.pathStart[i] as number) + dirBytes;
    const end = (index.pathStart[i + 1] as number) - 1;
    let slash = start;
    while (slash < end && paths[slash] !== 47) slash++;
    children++;
    if (slash === end) {
      let last = i + 1;
      if (index.stage[i] !== 0) while (last < to && samePath(index, i, last)) last++;
      const at = (i - c.passFrom) * STAT_FIELDS;
      const kind = s[at];
      const pathOfEntry = () => c.topSlash + paths.toString(encoding, index.pathStart[i] as number, end);
      if (kind === FAILED) lstatSync(pathOfEntry()); // raises what the pass met (EACCES, ELOOP, …): git answers instead
      const mode = index.mode[i] as number;
      if (index.stage[i] !== 0 || (mode & S_IFMT) === GITLINK) {
        state.fill(DIRTY, i, last); // a conflict, or a submodule: never vouched for
        if (kind === NONE || (kind === FOLDER && (mode & S_IFMT) !== GITLINK)) allPresent = false;
      } else if (kind === NONE || kind === FOLDER) {
        state[i] = DIRTY;
        allPresent = false;
      } else state[i] = entryState(c, i, pathOfEntry, s, at);
      i = last;
      continue;
    }
    // A child folder: its entries are one run, found by binary search on the bytes up to and with its '/'.
    const runStart = index.pathStart[i] as number;
    const runBytes = slash + 1 - runStart;
    let lo = i + 1;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = index.pathStart[mid] as number;
      const e = (index.pathStart[mid + 1] as number) - 1;
      if (e - s >= runBytes && paths.compare(paths, runStart, runStart + runBytes, s, s + runBytes) === 0) lo = mid + 1;
      else hi = mid;
    }
    const name = paths.toString(encoding, start, slash);
    const sub = rel + name;
    if (c.pass.folderKind[c.folderIndex.get(sub) ?? -1] === FOLDER) {
      const parentChain = chain;
      walkIndexFolder(
        c,
        i,
        lo,
        runBytes,
        `${sub}/`,
        lazy(() => {
          const own = readIgnoreFile(`${c.topSlash}${sub}/.gitignore`, `${sub}/`, true);
          return own === undefined ? parentChain() : [...parentChain(), own];
        }),
        lazy(() => excluded() || isIgnored(parentChain(), c.global, sub, name, true)),
      );
    } else {
      state.fill(DIRTY, i, lo);
      allPresent = false;
    }
    i = lo;
  }
  // Every child is on disk as the index has it, and the folder holds that many names (and perhaps `.git`, and the
  // toolkit's `.local`): nothing else is in it.
  const extra = (c.pass.folderNames[folder] as number) - children;
  const special = c.pass.folderSpecial[folder] as number;
  if (
    allPresent &&
    (extra === 0 || (extra <= 2 && extra === (special & 1) + (rel.length === c.cut ? (special >> 1) & 1 : 0)))
  )
    return;
  if (excluded()) return; // an ignored folder hides every untracked name in it, tracked or not
  let names: string[];
  try {
    names = readdirSync(rel === '' ? c.topSlash : c.topSlash + rel.slice(0, -1));
  } catch {
    names = [];
  }
  const accounted = new Set<string>();
  for (let i = from; i < to; ) {
    const start = (index.pathStart[i] as number) + dirBytes;
    const end = (index.pathStart[i + 1] as number) - 1;
    let slash = start;
    while (slash < end && paths[slash] !== 47) slash++;
    const name = paths.toString(encoding, start, slash);
    const runStart = index.pathStart[i] as number;
    const runBytes = slash + 1 - runStart; // through the '/' of a folder, through the NUL of a file
    let last = i + 1;
    for (; last < to; last++) {
      const s = index.pathStart[last] as number;
      if ((index.pathStart[last + 1] as number) - s < runBytes) break;
      if (paths.compare(paths, runStart, runStart + runBytes, s, s + runBytes) !== 0) break;
    }
    // Present as the index has it: a file or symlink for a file entry, a folder for a folder, anything for a gitlink.
    const st = lstatOrNone(c.topSlash + rel + name);
    const isFolder = slash < end;
    const gitlink = !isFolder && ((index.mode[i] as number) & S_IFMT) === GITLINK;
    if (st !== undefined && (gitlink || st.isDirectory() === isFolder)) accounted.add(name);
    i = last;
  }
  const lists = chain();
  for (const name of names) {
    // .local at the folder's top: the toolkit's own state, never listed
    if (name === '.git' || accounted.has(name) || (rel.length === c.cut && name === '.local')) continue;
    untrackedName(c, rel + name, name, lists);
  }
}
