// The working tree's snapshot from git's own commands alone: one round of four processes (rev-parse, config,
// ls-files -s, status --porcelain=v2), for a repository whose files the index reader does not model.
import { resolve } from 'node:path';
import { gitPort } from '../ports/git.ts';
import type { Git } from '../ports/git.ts';
import type { ExecResult } from '../ports/exec.ts';
import type { GitCommandsSnapshot } from './worktree-snapshot.ts';

/** `git status` as every snapshot runs it: the stat check and the untracked walk, on git's own threads. */
export const runGitStatus = (git: Git): Promise<ExecResult> =>
  git.run([
    'status',
    '--porcelain=v2',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--ignore-submodules=none',
    '--',
    '.',
  ]);

/** `running`: a `git status` of `dir` already started (by the default snapshot before its reader refused). */
export async function snapshotFromGit(
  dir: string,
  stampNs: bigint | undefined,
  refusal: string,
  running?: Promise<ExecResult>,
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
    running ?? runGitStatus(git),
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
