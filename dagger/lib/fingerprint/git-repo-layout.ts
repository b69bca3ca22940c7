// Finds a working tree's repository the way git's discovery does for the plain case (a `.git` folder or
// `gitdir:` file in the folder or above it), and reads the configuration files git would, in git's order.
// Anything this does not model (GIT_DIR and friends, includes, bare or relocated work trees, case folding)
// is refused, and the caller asks git itself.
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseGitConfig } from './git-config-file.ts';
import type { ConfigItem } from './git-config-file.ts';
import { IndexRefusal } from './git-index.ts';

export interface GitRepoLayout {
  /** The working tree's top, real path (as `git rev-parse --show-toplevel` prints it). */
  readonly top: string;
  /** The folder's path inside it: `` at the top, else `sub/dir/`. */
  readonly prefix: string;
  readonly gitDir: string;
  readonly commonDir: string;
  /** Every setting of every file git reads, in git's order (system, global, repository, worktree). */
  readonly config: readonly ConfigItem[];
}

// Settings outside a config file that change what git reads or where.
const ENVIRONMENT = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
];

const FALSE = /^(false|no|off|0)$/i;
export const isTrue = (value: string | null | undefined): boolean =>
  value === null || (value !== undefined && value !== '' && !FALSE.test(value));

/** The last value of a key, as git's single-valued lookup answers. */
export function lastValue(config: readonly ConfigItem[], key: string): string | null | undefined {
  let value: string | null | undefined;
  for (const item of config) if (item.key === key) value = item.value;
  return value;
}

function isGitDir(dir: string): boolean {
  const common = existsSync(join(dir, 'commondir'))
    ? resolve(dir, readFileSync(join(dir, 'commondir'), 'utf8').trim())
    : dir;
  return existsSync(join(dir, 'HEAD')) && existsSync(join(common, 'objects')) && existsSync(join(common, 'refs'));
}

/** The git dir a `.git` entry names: the folder itself, or the target of a `gitdir:` file. */
export function gitDirOf(dotGit: string): string | undefined {
  const stat = lstatSync(dotGit, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  if (stat.isDirectory()) return isGitDir(dotGit) ? dotGit : undefined;
  if (!stat.isFile()) return undefined;
  const match = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(dotGit, 'utf8'));
  if (match?.[1] === undefined) return undefined;
  const target = resolve(dirname(dotGit), match[1]);
  return isGitDir(target) ? target : undefined;
}

function readConfigFile(path: string, into: ConfigItem[]): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return; // absent or unreadable: git skips it too
  }
  for (const item of parseGitConfig(text, path)) {
    if (item.key === 'include.path' || item.key.startsWith('includeif.'))
      throw new IndexRefusal(`an include in "${path}"`);
    into.push(item);
  }
}

export function userPath(value: string): string {
  return value.startsWith('~/') ? join(homedir(), value.slice(2)) : value;
}

export const xdgConfig = (...parts: string[]): string =>
  join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', ...parts);

export function findGitRepo(dir: string): GitRepoLayout {
  const set = ENVIRONMENT.find((name) => process.env[name] !== undefined);
  if (set !== undefined) throw new IndexRefusal(`${set} is set`);
  const start = realpathSync(dir);
  let top = start;
  let gitDir: string | undefined;
  for (;;) {
    if (top.split('/').includes('.git')) throw new IndexRefusal('the folder is inside a git dir');
    gitDir = gitDirOf(join(top, '.git'));
    if (gitDir !== undefined) break;
    if (isGitDir(top)) throw new IndexRefusal('a bare repository');
    const up = dirname(top);
    if (up === top) throw new IndexRefusal('no repository above the folder');
    top = up;
  }
  const owner = statSync(top).uid;
  if (typeof process.getuid === 'function' && owner !== process.getuid())
    throw new IndexRefusal('the repository belongs to another user (safe.directory)');
  const commonFile = join(gitDir, 'commondir');
  const commonDir = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
  const config: ConfigItem[] = [];
  if (process.env.GIT_CONFIG_NOSYSTEM === undefined || !isTrue(process.env.GIT_CONFIG_NOSYSTEM))
    readConfigFile('/etc/gitconfig', config);
  readConfigFile(xdgConfig('config'), config);
  readConfigFile(join(homedir(), '.gitconfig'), config);
  readConfigFile(join(commonDir, 'config'), config);
  if (isTrue(lastValue(config, 'extensions.worktreeconfig'))) readConfigFile(join(gitDir, 'config.worktree'), config);
  if (isTrue(lastValue(config, 'core.bare'))) throw new IndexRefusal('core.bare is set');
  if (lastValue(config, 'core.worktree') !== undefined) throw new IndexRefusal('core.worktree is set');
  if (isTrue(lastValue(config, 'core.ignorecase'))) throw new IndexRefusal('core.ignorecase is set');
  const format = lastValue(config, 'extensions.objectformat');
  if (format !== undefined && format !== 'sha1' && format !== 'sha256')
    throw new IndexRefusal(`object format "${format}"`);
  const excludes = lastValue(config, 'core.excludesfile');
  if (excludes === null || (excludes !== undefined && !isAbsolute(userPath(excludes))))
    throw new IndexRefusal('a relative core.excludesFile');
  const prefix = start === top ? '' : `${start.slice(top.length + 1)}/`;
  return { top, prefix, gitDir, commonDir, config };
}
