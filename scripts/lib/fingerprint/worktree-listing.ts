import { lstatSync, readdirSync, existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { homedir } from 'node:os';
import type { Git } from '../ports/git.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { compareBytewise } from './compare-bytewise.ts';
import { modeFromGit, modeFromStat } from './file-mode.ts';
import type { FileMode } from './file-mode.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { isLocalStatePath } from './local-state.ts';

export interface ListedFile {
  readonly path: string;
  readonly mode: FileMode;
  /** Set when git vouches that the file on disk is exactly this blob (tracked, unmodified, no filters). */
  readonly oid: string | undefined;
}

function submodule(path: string): never {
  throw new FingerprintError('submodule', `Cannot fingerprint "${path}": submodules and nested repositories are not supported as image inputs`, {
    details: { path },
  });
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
export async function gitMayConvert(git: Git, root: string, prefixes: readonly string[]): Promise<boolean> {
  const config = await git.run(['config', '-z', '--get-regexp', '^core\\.(filemode|symlinks|autocrlf|attributesfile)$']);
  for (const item of config.stdout.toString('utf8').split('\0')) {
    const [key, value = ''] = item.split('\n');
    if ((key === 'core.filemode' || key === 'core.symlinks') && /^(false|no|off|0)$/i.test(value)) return true;
    if (key === 'core.autocrlf' && !/^(false|no|off|0)$/i.test(value)) return true;
    if (key === 'core.attributesfile') return true;
  }
  const infoPath = (await git.run(['rev-parse', '--git-path', 'info/attributes'])).stdout.toString('utf8').trim();
  const candidates = new Set<string>([join(root, infoPath), join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'git', 'attributes')]);
  const top = (await git.run(['rev-parse', '--show-toplevel'])).stdout.toString('utf8').trim();
  for (const prefix of prefixes) {
    for (let dir = prefix === '.' ? root : join(root, prefix); dir.length >= top.length; dir = dirname(dir)) {
      candidates.add(join(dir, '.gitattributes'));
      if (dir === dirname(dir)) break;
    }
  }
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.some((line) => !line.trimStart().startsWith('#') && CONVERTING.test(line.replace(/(^|\s)-text\b/g, ' ')))) return true;
  }
  return false;
}

/** What `git add -A` would stage, with git's own stat check deciding which tracked files are unmodified. */
export async function listGitWorktree(git: Git, root: string, prefixes: readonly string[], vouch: boolean): Promise<ListedFile[]> {
  const specs = prefixes.includes('.') ? ['.'] : [...new Set(prefixes)];
  const [index, status] = await Promise.all([
    git.run(['ls-files', '-s', '-z', '--', ...specs]),
    git.run(['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none', '--', ...specs]),
  ]);
  for (const r of [index, status]) {
    if (r.code !== 0) throw new FingerprintError('git-failed', `Cannot list the working tree of "${root}": ${r.stderr.trim()}`);
  }
  const prefixOf = (await git.run(['rev-parse', '--show-prefix'])).stdout.toString('utf8').trim();
  const dirty = new Set<string>();
  const untracked: string[] = [];
  for (const record of status.stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    const kind = record[0];
    // porcelain v2 names paths from the top of the repository
    const fields = record.split(' ');
    const full = kind === '?' ? record.slice(2) : kind === '1' ? fields.slice(8).join(' ') : kind === 'u' ? fields.slice(10).join(' ') : undefined;
    if (full === undefined || !full.startsWith(prefixOf)) continue;
    const path = full.slice(prefixOf.length);
    if (kind === '?') {
      if (path.endsWith('/')) {
        if (wanted(path.slice(0, -1), prefixes)) submodule(path.slice(0, -1));
        continue;
      }
      untracked.push(path);
    } else if (kind === 'u' || fields[1]?.[1] !== '.') {
      dirty.add(path);
    }
  }
  const out: ListedFile[] = [];
  const seen = new Set<string>();
  for (const record of index.stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [gitMode, oid, stage] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    if (seen.has(path) || !wanted(path, prefixes)) continue;
    seen.add(path);
    if (gitMode === '160000') submodule(path);
    if (vouch && stage === '0' && !dirty.has(path)) {
      const mode = modeFromGit(gitMode ?? '');
      if (mode !== undefined) out.push({ path, mode, oid });
      continue;
    }
    const mode = diskMode(root, path);
    if (mode !== undefined) out.push({ path, mode, oid: undefined });
  }
  for (const path of untracked) {
    if (seen.has(path) || !wanted(path, prefixes)) continue;
    const mode = diskMode(root, path);
    if (mode !== undefined) out.push({ path, mode, oid: undefined });
  }
  return sorted(out);
}
