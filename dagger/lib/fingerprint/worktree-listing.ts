import { lstatSync, readdirSync, existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { homedir } from 'node:os';
import type { GitCommandsSnapshot, GitWorktreeSnapshot, IndexReaderSnapshot } from './worktree-snapshot.ts';
import { rangesUnder } from './sorted-paths.ts';
import { indexByteRanges } from './git-text-content-keys.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { compareBytewise } from '../catalogue/compare-bytewise.ts';
import { modeFromGit, modeFromStat } from './file-mode.ts';
import type { FileMode } from './file-mode.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { isLocalStatePath } from './local-state.ts';
import { entryRangesUnder, oidHexOf, pathOf } from './index-entries.ts';
import { DIRTY } from './entry-state.ts';
import { parseStatusRecords } from './status-records.ts';

const GITLINK = 0o160000;

export interface ListedFile {
  readonly path: string;
  readonly mode: FileMode;
  /** Set when git vouches that the file on disk is exactly this blob (tracked, unmodified, no filters). */
  readonly oid: string | undefined;
}

function submodule(path: string): never {
  throw new FingerprintError(
    'submodule',
    `Cannot fingerprint "${path}": submodules and nested repositories are not supported as image inputs`,
    {
      details: { path },
    },
  );
}

function diskMode(root: string, path: string): FileMode | undefined {
  try {
    const stat = lstatSync(join(root, path));
    return stat.isFile() || stat.isSymbolicLink() ? modeFromStat(stat) : undefined;
  } catch {
    return undefined; // deleted since git listed it
  }
}

function sorted(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => compareBytewise(a.path, b.path));
}

function wanted(path: string, prefixes: readonly string[]): boolean {
  return !isLocalStatePath(path) && prefixes.some((p) => isAtOrUnder(path, p));
}

/** A nested repository is refused where it is, or holds, a path that must be listed in full (an image's input). */
function refusedNested(path: string, refuse: readonly string[]): boolean {
  return !isLocalStatePath(path) && refuse.some((p) => isAtOrUnder(path, p) || isAtOrUnder(p, path));
}

/** Outside git: every file and symlink on disk, symlinks never followed. */
export function listDisk(root: string, prefixes: readonly string[]): ListedFile[] {
  const out: ListedFile[] = [];
  const walk = (rel: string): void => {
    let dirents;
    try {
      dirents = readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of dirents) {
      const path = rel === '' ? d.name : `${rel}/${d.name}`;
      if (isLocalStatePath(path)) continue;
      const under = prefixes.some((p) => isAtOrUnder(path, p));
      if (d.isDirectory()) {
        if (under || prefixes.some((p) => isAtOrUnder(p, path))) walk(path);
      } else if (under && (d.isFile() || d.isSymbolicLink())) {
        const mode = diskMode(root, path);
        if (mode !== undefined) out.push({ path, mode, oid: undefined });
      }
    }
  };
  walk('');
  return sorted(out);
}

const CONVERTING = /(^|\s)(filter|eol|text|crlf|ident|working-tree-encoding)(=|\s|$)/;

/** True when attributes or config may make disk bytes differ from blobs, so git cannot vouch for content. */
export function gitMayConvert(
  snapshot: Pick<GitWorktreeSnapshot, 'config' | 'attributesFile' | 'top'>,
  root: string,
  prefixes: readonly string[],
  seen: Map<string, boolean> = new Map(),
): boolean {
  for (const item of snapshot.config.split('\0')) {
    const [key, value = ''] = item.split('\n');
    if ((key === 'core.filemode' || key === 'core.symlinks') && /^(false|no|off|0)$/i.test(value)) return true;
    if (key === 'core.autocrlf' && !/^(false|no|off|0)$/i.test(value)) return true;
    if (key === 'core.attributesfile') return true;
  }
  // `seen` remembers each attributes file's verdict across calls: one image after another share most folders.
  const converts = (file: string): boolean => {
    let verdict = seen.get(file);
    if (verdict === undefined) {
      verdict =
        existsSync(file) &&
        readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => !line.trimStart().startsWith('#') && CONVERTING.test(line.replace(/(^|\s)-text\b/g, ' ')));
      seen.set(file, verdict);
    }
    return verdict;
  };
  if (
    converts(snapshot.attributesFile) ||
    converts(join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'git', 'attributes'))
  )
    return true;
  for (const prefix of prefixes) {
    for (let dir = prefix === '.' ? root : join(root, prefix); dir.length >= snapshot.top.length; dir = dirname(dir)) {
      if (converts(join(dir, '.gitattributes'))) return true;
      if (dir === dirname(dir)) break;
    }
  }
  return false;
}

/** Git's index modes as the fingerprint names them; undefined for what is not a file. */
function fileModeOf(mode: number): FileMode | undefined {
  if (mode === 0o100644 || mode === 0o100664) return '100644';
  if (mode === 0o100755) return '100755';
  if (mode === 0o120000) return '120000';
  return undefined;
}

/** What `git add -A` would stage, with git's own stat check deciding which tracked files are unmodified. */
export function listGitWorktree(
  snapshot: GitWorktreeSnapshot,
  root: string,
  prefixes: readonly string[],
  vouch: boolean,
  refuseNested: readonly string[] = prefixes,
): ListedFile[] {
  if (snapshot.errors !== '')
    throw new FingerprintError('git-failed', `Cannot list the working tree of "${root}": ${snapshot.errors}`);
  return snapshot.via === 'git'
    ? listFromGitText(snapshot, root, prefixes, vouch, refuseNested)
    : listFromEntries(snapshot, root, prefixes, vouch, refuseNested);
}

/** The listing from the index reader's typed arrays: only the entries under the prefixes are decoded. */
function listFromEntries(
  snapshot: IndexReaderSnapshot,
  root: string,
  prefixes: readonly string[],
  vouch: boolean,
  refuseNested: readonly string[],
): ListedFile[] {
  // git lists an untracked folder holding a repository of its own as `dir/` and does not look inside it
  for (const path of snapshot.nested) if (refusedNested(path, refuseNested)) submodule(path);
  const { entries, state, ascii } = snapshot;
  const fromDisk = (path: string): ListedFile | undefined => {
    const mode = diskMode(root, path);
    return mode === undefined ? undefined : { path, mode, oid: undefined };
  };
  const files: ListedFile[] = [];
  // Only the entries under the prefixes are decoded: one service's listing skips the other 90% of a monorepo.
  let previous = '';
  for (const [from, to] of entryRangesUnder(entries, prefixes)) {
    for (let i = from; i < to; i++) {
      const path = pathOf(entries, i, ascii);
      if (path === previous || isLocalStatePath(path)) continue; // conflicted paths repeat once per stage
      previous = path;
      const mode = entries.mode[i] as number;
      if (mode === GITLINK) {
        if (refusedNested(path, refuseNested)) submodule(path);
        continue;
      }
      const fileMode = vouch && entries.stage[i] === 0 && state[i] !== DIRTY ? fileModeOf(mode) : undefined;
      if (fileMode !== undefined) files.push({ path, mode: fileMode, oid: oidHexOf(entries, i) });
      else if (!vouch || entries.stage[i] !== 0 || state[i] === DIRTY) {
        const file = fromDisk(path); // its mode read from disk, for the few kept
        if (file !== undefined) files.push(file);
      }
    }
  }
  const extra = snapshot.untracked
    .filter((p) => !isLocalStatePath(p) && wanted(p, prefixes))
    .map(fromDisk)
    .filter((f): f is ListedFile => f !== undefined);
  return extra.length === 0 ? files : sorted([...files, ...extra]);
}

/** Entries of a bytewise-sorted list at or under any prefix, still sorted. */
function underPrefixes(files: ListedFile[], prefixes: readonly string[]): ListedFile[] {
  if (prefixes.includes('.')) return files;
  return rangesUnder(files, prefixes).flatMap(([start, end]) => files.slice(start, end));
}

/** The listing from git's own `ls-files -s` and `status` text: only the records under the prefixes are decoded. */
function listFromGitText(
  snapshot: GitCommandsSnapshot,
  root: string,
  prefixes: readonly string[],
  vouch: boolean,
  refuseNested: readonly string[],
): ListedFile[] {
  const records = parseStatusRecords(snapshot.status, snapshot.prefix);
  for (const path of records.nested) if (refusedNested(path, refuseNested)) submodule(path);
  const dirty = new Set(records.dirty);
  const { untracked } = records;
  const out: ListedFile[] = [];
  // Only the index records under the prefixes are decoded: one service's listing skips the other 90% of a monorepo.
  const text = indexByteRanges(snapshot.index, prefixes)
    .map(([start, end]) => snapshot.index.toString('utf8', start, end))
    .join('');
  let previous = '';
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\0', at);
    const record = text.slice(at, end < 0 ? text.length : end);
    at = end < 0 ? text.length : end + 1;
    // `<mode> <oid> <stage>\t<path>`, in index order (bytewise); conflicted paths repeat once per stage
    const tab = record.indexOf('\t');
    const path = record.slice(tab + 1);
    if (path === previous || isLocalStatePath(path)) continue;
    previous = path;
    const gitMode = record.slice(0, 6);
    const stage = record.charCodeAt(tab - 1) - 48;
    if (vouch && stage === 0 && !dirty.has(path)) {
      if (gitMode === '160000') {
        if (refusedNested(path, refuseNested)) submodule(path);
        continue;
      }
      const mode = modeFromGit(gitMode);
      if (mode !== undefined) out.push({ path, mode, oid: record.slice(7, tab - 2) });
      continue;
    }
    if (gitMode === '160000') {
      if (refusedNested(path, refuseNested)) submodule(path);
      continue;
    }
    out.push({ path, mode: '100644', oid: undefined }); // mode read from disk below, for the few kept
  }
  const tracked = underPrefixes(out, prefixes);
  const fromDisk = (path: string): ListedFile | undefined => {
    const mode = diskMode(root, path);
    return mode === undefined ? undefined : { path, mode, oid: undefined };
  };
  const files = tracked
    .map((f) => (f.oid === undefined ? fromDisk(f.path) : f))
    .filter((f): f is ListedFile => f !== undefined);
  const extra = untracked
    .filter((p) => !isLocalStatePath(p) && wanted(p, prefixes))
    .map(fromDisk)
    .filter((f): f is ListedFile => f !== undefined);
  return extra.length === 0 ? files : sorted([...files, ...extra]);
}
