// The system calls of a status walk, apart from its logic: lstat every index entry, lstat and count the names of
// every tracked folder, into typed arrays (no object kept per entry); the comparison with the index stays in
// untracked-walk.ts. (A worker thread sharing this pass, as git's preload-index shares lstat, cost more in its
// start-up than it saved on the 2-core benchmark machine: docs/benchmarks.md.)
import { lstatSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';

/** Doubles per entry in `stats`: kind, mode, size, mtimeMs, ctimeMs, ino, uid, gid. */
export const STAT_FIELDS = 8;
/** Kinds: nothing there (ENOENT, ENOTDIR), a file, a symlink, a folder, something else, an error to raise again. */
export const NONE = 0;
export const FILE = 1;
export const SYMLINK = 2;
export const FOLDER = 3;
export const OTHER = 4;
export const FAILED = -1;

export interface StatPassInput {
  /** The top of the working tree, with a trailing `/`. */
  readonly topSlash: string;
  readonly paths: Uint8Array;
  readonly pathStart: Uint32Array;
  /** The entries to look at. */
  readonly from: number;
  readonly to: number;
  readonly ascii: boolean;
  /** Every folder holding an entry (from the top, no `/` at the end; `` for the top). */
  readonly folders: readonly string[];
}

/** What the pass found. */
export interface StatPassOutput {
  /** Entry from + k's lstat at `stats[k * STAT_FIELDS]`. */
  readonly stats: Float64Array;
  readonly folderKind: Int8Array;
  /** The folder's count of names (-1 unreadable), and whether `.git` (bit 1) and `.local` (bit 2) are among them. */
  readonly folderNames: Int32Array;
  readonly folderSpecial: Uint8Array;
}

/** Entries' lstat, then each folder's lstat and count of names. */
function statPass(input: StatPassInput, out: StatPassOutput): void {
  const { topSlash, from, to, folders } = input;
  const { stats } = out;
  const paths = Buffer.from(input.paths.buffer, input.paths.byteOffset, input.paths.byteLength);
  const encoding = input.ascii ? 'latin1' : 'utf8';
  const kindOf = (st: Stats) =>
    st.isFile() ? FILE : st.isSymbolicLink() ? SYMLINK : st.isDirectory() ? FOLDER : OTHER;
  for (let i = from; i < to; i++) {
    const path = paths.toString(encoding, input.pathStart[i] as number, (input.pathStart[i + 1] as number) - 1);
    const at = (i - from) * STAT_FIELDS;
    try {
      const st = lstatSync(topSlash + path, { throwIfNoEntry: false });
      if (st !== undefined) {
        stats[at] = kindOf(st);
        stats[at + 1] = st.mode;
        stats[at + 2] = st.size;
        stats[at + 3] = st.mtimeMs;
        stats[at + 4] = st.ctimeMs;
        stats[at + 5] = st.ino;
        stats[at + 6] = st.uid;
        stats[at + 7] = st.gid;
      }
    } catch (error) {
      stats[at] = (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? NONE : FAILED;
    }
  }
  folders.forEach((folder, k) => {
    const path = folder === '' ? topSlash : topSlash + folder;
    try {
      const st = lstatSync(path, { throwIfNoEntry: false });
      out.folderKind[k] = st === undefined ? NONE : kindOf(st);
      if (out.folderKind[k] !== FOLDER) return;
      const names = readdirSync(path);
      out.folderNames[k] = names.length;
      out.folderSpecial[k] = (names.includes('.git') ? 1 : 0) | (names.includes('.local') ? 2 : 0);
    } catch (error) {
      out.folderKind[k] = (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? NONE : FAILED;
      out.folderNames[k] = -1;
    }
  });
}

/** Every folder holding one of the entries, `root` first, each before what it holds (index order). */
export function foldersOf(
  paths: Buffer,
  pathStart: Uint32Array,
  from: number,
  to: number,
  root: string,
  ascii: boolean,
) {
  const encoding = ascii ? 'latin1' : 'utf8';
  const folders: string[] = [root];
  const seen = new Set<string>([root]);
  let previousStart = 0;
  let previousLength = -1;
  for (let i = from; i < to; i++) {
    const start = pathStart[i] as number;
    let slash = (pathStart[i + 1] as number) - 2;
    while (slash >= start && paths[slash] !== 47) slash--;
    const length = slash < start ? 0 : slash - start;
    // The folder changes once per folder: compared as bytes, decoded only then.
    if (
      length === previousLength &&
      paths.compare(paths, start, start + length, previousStart, previousStart + length) === 0
    )
      continue;
    previousStart = start;
    previousLength = length;
    const added: string[] = [];
    for (
      let f = paths.toString(encoding, start, start + length);
      f.length > root.length && !seen.has(f);
      f = f.slice(0, Math.max(0, f.lastIndexOf('/')))
    ) {
      seen.add(f);
      added.push(f);
    }
    for (let k = added.length - 1; k >= 0; k--) folders.push(added[k] as string);
  }
  return folders;
}

/** The pass for entries [from, to). */
export function runStatPass(input: StatPassInput): StatPassOutput {
  const count = input.to - input.from;
  const folders = input.folders.length;
  const out: StatPassOutput = {
    stats: new Float64Array(count * STAT_FIELDS),
    folderKind: new Int8Array(folders),
    folderNames: new Int32Array(folders),
    folderSpecial: new Uint8Array(folders),
  };
  statPass(input, out);
  return out;
}
