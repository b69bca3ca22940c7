import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Git } from '../ports/git.ts';

function hasRules(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .some((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  } catch {
    return true; // unreadable: let git check-attr decide
  }
}

/**
 * Whether a working tree is in git, and whether attributes can come from outside the files
 * `check` lists: `.git/info/attributes`, `core.attributesFile`, the user's global file, or a
 * `.gitattributes` in a folder above the checked root.
 */
export async function attributesOutsideTree(git: Git, root: string): Promise<{ inGit: boolean; outside: boolean }> {
  const [revParse, config] = await Promise.all([
    git.run(['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--git-path', 'info/attributes']),
    git.run(['config', '--path', '--get', 'core.attributesFile']),
  ]);
  const [inside, top = '', info = ''] = revParse.stdout.toString('utf8').split('\n');
  if (revParse.code !== 0 || inside !== 'true') return { inGit: false, outside: false };
  const candidates = [
    resolve(root, info),
    join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'git', 'attributes'),
  ];
  const configured = config.stdout.toString('utf8').trim();
  if (configured !== '') candidates.push(resolve(top, configured));
  for (let dir = dirname(resolve(root)); dir.length >= top.length && dir !== dirname(dir); dir = dirname(dir))
    candidates.push(join(dir, '.gitattributes'));
  return { inGit: true, outside: candidates.some(hasRules) };
}
