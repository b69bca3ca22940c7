// The working tree's snapshot from git's own commands (the default): one round of four processes (rev-parse,
// config, ls-files -s, status --porcelain=v2), started on the command's first line while its modules load.
import { resolve } from 'node:path';
import { gitPort } from '../ports/git.ts';
import type { GitCommandsSnapshot } from './worktree-snapshot.ts';

export async function snapshotFromGit(
  dir: string,
  stampNs: bigint | undefined,
  refusal: string,
): Promise<GitCommandsSnapshot> {
  const git = gitPort(dir);
  const [revParse, config, index, status] = await Promise.all([
    git.run([
      'rev-parse',
      '--is-inside-work-tree',
      '--show-toplevel',
      '--git-path',
      'info/attributes',
      '--show-prefix',
    ]),
    git.run(['config', '-z', '--get-regexp', '^core\\.(filemode|symlinks|autocrlf|attributesfile)$']),
    git.run(['ls-files', '-s', '-z', '--', '.']),
    git.run([
      'status',
      '--porcelain=v2',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=none',
      '--',
      '.',
    ]),
  ]);
  const [inside, top = '', attributes = '', prefix = ''] = revParse.stdout.toString('utf8').split('\n');
  const ok = revParse.code === 0 && inside === 'true';
  return {
    inside: ok,
    prefix,
    top,
    attributesFile: resolve(dir, attributes),
    config: config.stdout.toString('utf8'),
    index: index.stdout,
    status: status.stdout,
    errors:
      ok && (index.code !== 0 || status.code !== 0) ? `${index.stderr}${status.stderr}`.trim() || 'git failed' : '',
    stampNs,
    via: 'git',
    refusal,
  };
}
