// The two file-system questions git's untracked walk asks besides readdir: a folder's ignore file, and whether an
// untracked folder is a repository of its own (git lists it as `dir/` and never looks inside).
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitDirOf } from './git-repo-layout.ts';
import { parseIgnoreFile } from './gitignore.ts';
import type { IgnoreFile } from './gitignore.ts';

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
