// What `git ls-files -s` and `git status --porcelain=v2 --untracked-files=all` say about a folder, worked out
// without git: the index file parsed in place, each entry's stat data compared with lstat (git's rules,
// racy entries re-read), and the folder walked for untracked files through the ignore rules.
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isAscii } from 'node:buffer';
import type { Stats } from 'node:fs';
import { isNestedRepo, readIgnoreFile } from './untracked-walk.ts';
import type { IgnoreFile } from './gitignore.ts';
import { isIgnored } from './gitignore.ts';
import {
  CTIME_NS,
  CTIME_S,
  EXT_INTENT_TO_ADD,
  GID,
  INO,
  MODE,
  MTIME_NS,
  MTIME_S,
  OID,
  parseGitIndex,
  SIZE,
  stageOf,
  UID,
} from './git-index.ts';
import type { GitIndex } from './git-index.ts';
import { findGitRepo, lastValue, userPath, xdgConfig } from './git-repo-layout.ts';
import type { GitRepoLayout } from './git-repo-layout.ts';

export interface IndexSnapshotParts {
  readonly layout: GitRepoLayout;
  /** `ls-files -s -z -- .` records (paths relative to the folder). */
  readonly index: Buffer;
  /** `status --porcelain=v2 -z` records (paths from the top) for what differs from the index, and untracked files. */
  readonly status: Buffer;
  /** `config -z --get-regexp` records of the settings that make disk bytes differ from blobs. */
  readonly config: string;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
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

/** git's ie_match_stat for a regular file or symlink entry: false when anything it checks differs. */
function statMatches(d: DataView, at: number, st: Stats): boolean {
  const mode = d.getUint32(at + MODE);
  const type = st.mode & S_IFMT;
  if ((mode & S_IFMT) === S_IFLNK ? type !== S_IFLNK : type !== S_IFREG || ((mode ^ st.mode) & 0o100) !== 0)
    return false;
  return (
    d.getUint32(at + SIZE) === u32(st.size) &&
    st.mtimeMs === ms(d.getUint32(at + MTIME_S), d.getUint32(at + MTIME_NS)) &&
    st.ctimeMs === ms(d.getUint32(at + CTIME_S), d.getUint32(at + CTIME_NS)) &&
    d.getUint32(at + INO) === u32(st.ino) &&
    d.getUint32(at + UID) === u32(st.uid) &&
    d.getUint32(at + GID) === u32(st.gid)
  );
}

/** Racily clean (git's rule): written in the same clock tick as the index or after it, so its stat proves nothing. */
function racy(d: DataView, at: number, indexSec: number, indexNsec: number): boolean {
  const sec = d.getUint32(at + MTIME_S);
  return sec > indexSec || (sec === indexSec && d.getUint32(at + MTIME_NS) >= indexNsec);
}

/** Only for the few records git would print. */
const hexOid = (index: GitIndex, at: number) => index.data.toString('hex', at + OID, at + OID + index.oidBytes);

const HEX = Buffer.from('0123456789abcdef');

/** `<mode> <oid> <stage>\t<path>\0` for each listed entry, the folder's prefix cut from the path: one buffer. */
function lsFilesRecords(index: GitIndex, listed: readonly number[], cut: number): Buffer {
  const d = index.data;
  const fixed = 6 + 1 + index.oidBytes * 2 + 1 + 1 + 1 + 1;
  let size = 0;
  for (const i of listed) size += fixed + (index.pathStart[i + 1] as number) - (index.pathStart[i] as number) - cut;
  const out = Buffer.allocUnsafe(size);
  let w = 0;
  for (const i of listed) {
    const at = index.record[i] as number;
    w += out.write(
      d
        .readUInt32BE(at + MODE)
        .toString(8)
        .padStart(6, '0'),
      w,
      'latin1',
    );
    out[w++] = 32;
    for (let b = at + OID; b < at + OID + index.oidBytes; b++) {
      const byte = d[b] as number;
      out[w++] = HEX[byte >> 4] as number;
      out[w++] = HEX[byte & 15] as number;
    }
    out[w++] = 32;
    out[w++] = 48 + stageOf(index, i);
    out[w++] = 9;
    w += index.paths.copy(out, w, (index.pathStart[i] as number) + cut, index.pathStart[i + 1] as number);
    out[w++] = 0;
  }
  return out;
}

function convertingConfig(layout: GitRepoLayout): string {
  const keys = new Set(['core.filemode', 'core.symlinks', 'core.autocrlf', 'core.attributesfile']);
  return layout.config
    .filter((item) => keys.has(item.key))
    .map((item) => (item.value === null ? `${item.key}\0` : `${item.key}\n${item.value}\0`))
    .join('');
}

/** Throws IndexRefusal for what it does not model; the caller then runs git. */
export function takeIndexSnapshot(dir: string): IndexSnapshotParts {
  const layout = findGitRepo(dir);
  const { top, prefix, gitDir, commonDir, config } = layout;
  const indexFile = join(gitDir, 'index');
  const indexStat = statSync(indexFile, { bigint: true, throwIfNoEntry: false });
  const data = indexStat === undefined ? undefined : readFileSync(indexFile);
  const oidBytes = lastValue(config, 'extensions.objectformat') === 'sha256' ? 32 : 20;
  const index: GitIndex | undefined = data === undefined ? undefined : parseGitIndex(data, oidBytes);
  const indexSec = indexStat === undefined ? 0 : Number(indexStat.mtimeNs / 1_000_000_000n);
  const indexNsec = indexStat === undefined ? 0 : Number(indexStat.mtimeNs % 1_000_000_000n);
  const prefixBytes = Buffer.from(prefix);
  // Paths of plain ASCII (the common case) decode as latin1, several times faster than UTF-8 and the same string.
  const encoding = index !== undefined && isAscii(index.paths) ? 'latin1' : 'utf8';
  const topSlash = `${top}/`;
  const status: string[] = [];
  const tracked = new Set<string>();
  const trackedDirs = new Set<string>();
  const gitlinks = new Set<string>();
  const becameFolder = new Set<string>(); // tracked as a file, a folder on disk now
  const listed: number[] = [];
  let previousDir = '';
  let previousPath = '';
  const view = new DataView(index?.data.buffer ?? new ArrayBuffer(0), index?.data.byteOffset ?? 0);
  for (let i = 0; index !== undefined && i < index.count; i++) {
    const start = index.pathStart[i] as number;
    const end = index.pathStart[i + 1] as number;
    if (
      prefixBytes.length > 0 &&
      (end - start < prefixBytes.length ||
        index.paths.compare(prefixBytes, 0, prefixBytes.length, start, start + prefixBytes.length) !== 0)
    )
      continue;
    const at = index.record[i] as number;
    const mode = view.getUint32(at + MODE);
    const stage = stageOf(index, i);
    const full = index.paths.toString(encoding, start, end);
    listed.push(i);
    if (full === previousPath) continue; // conflict stages repeat the path
    previousPath = full;
    tracked.add(full);
    const slash = full.lastIndexOf('/');
    const folder = slash < 0 ? '' : full.slice(0, slash);
    if (folder !== previousDir) {
      for (let f = folder; f !== '' && !trackedDirs.has(f); f = f.slice(0, Math.max(0, f.lastIndexOf('/'))))
        trackedDirs.add(f);
      previousDir = folder;
    }
    if (stage !== 0) {
      status.push(
        `u UU N... 100644 100644 100644 100644 ${hexOid(index, at)} ${hexOid(index, at)} ${hexOid(index, at)} ${full}`,
      );
      continue;
    }
    if ((mode & S_IFMT) === GITLINK) {
      gitlinks.add(full);
      status.push(`1 .M S... 160000 160000 160000 ${hexOid(index, at)} ${hexOid(index, at)} ${full}`); // never vouched for: no key covers it
      continue;
    }
    const st = lstatOrNone(topSlash + full);
    if (st?.isDirectory()) becameFolder.add(full);
    // assume-unchanged and skip-worktree are not trusted: the disk bytes are what an image is built from
    const clean =
      st !== undefined &&
      ((index.extended[i] ?? 0) & EXT_INTENT_TO_ADD) === 0 &&
      statMatches(view, at, st) &&
      !racy(view, at, indexSec, indexNsec);
    if (!clean)
      status.push(
        `1 .${st === undefined ? 'D' : 'M'} N... 100644 100644 100644 ${hexOid(index, at)} ${hexOid(index, at)} ${full}`,
      );
  }
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
  // Names only (no Dirent per file): a tracked name that lstat found a file or symlink needs no type; a tracked
  // folder is lstat'ed once (a symlink or file in its place hides every entry under it, as git's
  // has_symlink_leading_path rule says); only untracked names are lstat'ed for their type.
  const replaced: string[] = [];
  const walk = (rel: string, lists: IgnoreFile[]): void => {
    let names: string[];
    try {
      names = readdirSync(rel === '' ? top : topSlash + rel.slice(0, -1));
    } catch {
      return;
    }
    const own = names.includes('.gitignore') ? readIgnoreFile(`${topSlash}${rel}.gitignore`, rel, true) : undefined;
    const here = own === undefined ? lists : [...lists, own];
    for (const name of names) {
      if (name === '.git') continue;
      const path = rel + name;
      if (tracked.has(path) && !becameFolder.has(path)) continue;
      if (gitlinks.has(path)) continue;
      const st = lstatOrNone(topSlash + path);
      if (st === undefined) continue;
      if (st.isDirectory()) {
        if (isIgnored(here, global, path, name, true)) continue;
        if (!trackedDirs.has(path) && isNestedRepo(topSlash + path)) status.push(`? ${path}/`);
        else walk(`${path}/`, here);
      } else if (st.isFile() || st.isSymbolicLink()) {
        if (trackedDirs.has(path)) replaced.push(`${path}/`);
        if (!isIgnored(here, global, path, name, false)) status.push(`? ${path}`);
      }
    }
  };
  if (!hidden) walk(prefix, chain);
  for (const folder of replaced)
    for (const path of tracked)
      if (path.startsWith(folder))
        status.push(`1 .D N... 100644 100644 100644 ${'0'.repeat(40)} ${'0'.repeat(40)} ${path}`);
  return {
    layout,
    index: index === undefined ? Buffer.alloc(0) : lsFilesRecords(index, listed, prefixBytes.length),
    status: Buffer.from(status.length === 0 ? '' : `${status.join('\0')}\0`),
    config: convertingConfig(layout),
  };
}
