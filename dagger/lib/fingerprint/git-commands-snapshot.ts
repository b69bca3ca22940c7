// The working tree's snapshot from git's own commands, where the index reader refuses: one round of four
// processes (rev-parse, config, ls-files -s, status --porcelain=v2), their text parsed once into the entries and
// states the index reader gives.
import { resolve } from 'node:path';
import { gitPort } from '../ports/git.ts';
import { isAscii } from 'node:buffer';
import type { GitWorktreeSnapshot } from './worktree-snapshot.ts';
import { indexOfEntry, parseLsFiles, samePathAs } from './index-entries.ts';
import { DIRTY, STAGED } from './entry-state.ts';

export async function snapshotFromGit(
  dir: string,
  stampNs: bigint | undefined,
  refusal: string,
): Promise<GitWorktreeSnapshot> {
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
  const entries = parseLsFiles(ok && index.code === 0 ? index.stdout : Buffer.alloc(0));
  const state = new Uint8Array(entries.count);
  const untracked: string[] = [];
  const nested: string[] = [];
  const staged: string[] = [];
  for (const record of (ok ? status.stdout : Buffer.alloc(0)).toString('utf8').split('\0')) {
    const kind = record[0];
    // porcelain v2 names paths from the top of the repository
    const fields = record.split(' ');
    const full =
      kind === '?'
        ? record.slice(2)
        : kind === '1'
          ? fields.slice(8).join(' ')
          : kind === 'u'
            ? fields.slice(10).join(' ')
            : undefined;
    if (full === undefined || !full.startsWith(prefix)) continue;
    const path = full.slice(prefix.length);
    if (kind === '?') {
      // git lists an untracked folder holding a repository of its own as `dir/` and does not look inside it
      if (path.endsWith('/')) nested.push(path.slice(0, -1));
      else untracked.push(path);
      continue;
    }
    const worktree = kind === 'u' || fields[1]?.[1] !== '.';
    const key = Buffer.from(path);
    const at = indexOfEntry(entries, key);
    if (at < 0) {
      staged.push(path);
      continue;
    }
    // conflict stages repeat the path
    for (let i = at; i < entries.count && samePathAs(entries, i, key); i++)
      state[i] = Math.max(state[i] as number, worktree ? DIRTY : STAGED);
  }
  return {
    inside: ok,
    prefix,
    top,
    attributesFile: resolve(dir, attributes),
    config: config.stdout.toString('utf8'),
    entries,
    ascii: isAscii(entries.paths),
    state,
    untracked,
    nested,
    staged,
    errors:
      ok && (index.code !== 0 || status.code !== 0) ? `${index.stderr}${status.stderr}`.trim() || 'git failed' : '',
    stampNs,
    via: 'git',
    refusal,
  };
}
