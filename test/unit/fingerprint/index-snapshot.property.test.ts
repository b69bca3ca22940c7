// The index reader, alone and beside `git status`, against git's own commands: on random working trees (nested folders, symlinks, executable bits,
// ignore files, edits, deletions, untracked and intent-to-add files, assume-unchanged and skip-worktree flags,
// nested repositories, gitlinks, converting attributes, index versions 2–4, the untracked cache) the three snapshots list the same files and give the same
// fingerprints, caches cleared between them so neither can answer for the other.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fingerprintImages, loadCatalogue } from '../../../scripts/lib/fingerprint/index.ts';
import { openWorktreeSource } from '../../../scripts/lib/fingerprint/worktree-source.ts';
import { gitSnapshot } from '../../../scripts/lib/fingerprint/git-worktree-snapshot.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const CATALOGUE = 'gitops/manifests/images.yaml';
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

const catalogue = JSON.stringify({
  platform: 'linux/amd64',
  images: {
    a: { image: 'pharos/a', application: 'pharos', context: '.', dockerfile: 'a/Dockerfile', inputs: ['a', 'lib'] },
    b: { image: 'pharos/b', application: 'pharos', context: '.', dockerfile: 'b/Dockerfile', inputs: ['b'] },
  },
});

const IGNORE_LINES = [
  '*.log',
  '!keep.log',
  'build/',
  '/top-only',
  'x/**/y',
  '**/tmp',
  '[ab]?.txt',
  '\\#hash',
  'trail   ',
  'trail\\ ',
  '*.o',
  'sub/',
  '!sub/',
  'n[!0-9]',
  'q[[:digit:]]*',
  'deep/**',
  '# a comment',
  '',
];
const NAMES = [
  'x',
  'y',
  'keep.log',
  'a.log',
  'build',
  'tmp',
  'ab.txt',
  'a1.txt',
  '#hash',
  'trail',
  'trail ',
  'm.o',
  'sub',
  'na',
  'n1',
  'q7',
  'deep',
  'top-only',
  'f',
];
const DIRS = ['a', 'a/x', 'a/x/z', 'b', 'b/sub', 'lib', 'lib/deep', 'c'];

const path = fc.tuple(fc.constantFrom(...DIRS), fc.constantFrom(...NAMES)).map(([dir, name]) => `${dir}/${name}`);
const file = fc.record({
  path,
  content: fc.string({ maxLength: 12 }),
  kind: fc.constantFrom('file', 'file', 'exec', 'symlink'),
});
const change = fc.oneof(
  fc.record({ op: fc.constant('edit'), path, content: fc.string({ maxLength: 12 }) }),
  fc.record({ op: fc.constantFrom('delete', 'chmod', 'intent', 'assume', 'skip', 'nested', 'gitlink'), path }),
  fc.record({ op: fc.constant('untracked'), path, content: fc.string({ maxLength: 12 }) }),
  fc.record({
    op: fc.constant('ignore'),
    dir: fc.constantFrom('', ...DIRS),
    lines: fc.array(fc.constantFrom(...IGNORE_LINES), { maxLength: 4 }),
  }),
  fc.record({ op: fc.constant('version'), version: fc.constantFrom('2', '3', '4') }),
  fc.record({ op: fc.constant('untracked-cache') }),
  fc.record({
    op: fc.constant('attributes'),
    line: fc.constantFrom('*.txt text eol=crlf', '*.log -text', 'x filter=none'),
  }),
);

function put(dir: string, rel: string, content: string, kind: string): boolean {
  const abs = join(dir, rel);
  try {
    mkdirSync(dirname(abs), { recursive: true });
    rmSync(abs, { recursive: true, force: true });
    if (kind === 'symlink') symlinkSync(content === '' ? 'target' : content.replace(/\0/g, ''), abs);
    else {
      writeFileSync(abs, content);
      chmodSync(abs, kind === 'exec' ? 0o755 : 0o644);
    }
    return true;
  } catch {
    return false; // a name taken by a folder on the way: the tree simply lacks this file
  }
}

async function fingerprints(dir: string, via: 'index' | 'status' | 'git') {
  rmSync(join(dir, '.local'), { recursive: true, force: true });
  const source = await openWorktreeSource(dir, via);
  const listed = await source.list(['.'], []).then(
    (entries) => entries.map((e) => `${e.mode} ${e.path}`),
    (error: { code?: string }) => error.code ?? String(error),
  );
  try {
    const results = await fingerprintImages(source, await loadCatalogue(source), { encodings: true });
    return { listed, results: results.map((r) => [r.name, r.fingerprint, r.encoding]) };
  } catch (error) {
    return { listed, error: (error as { code?: string }).code ?? String(error) };
  }
}

function apply(
  repo: TempRepo,
  c: { op: string; path?: string; content?: string; dir?: string; lines?: string[]; line?: string; version?: string },
) {
  const p = c.path ?? '';
  const git = (...args: string[]) => {
    try {
      repo.git(...args);
    } catch {
      // not applicable to this tree (an untracked or missing path): the tree stays as it was
    }
  };
  if (c.op === 'edit' || c.op === 'untracked') put(repo.dir, p, c.content ?? '', 'file');
  else if (c.op === 'delete') rmSync(join(repo.dir, p), { recursive: true, force: true });
  else if (c.op === 'chmod') git('update-index', '--chmod=+x', '--', p), put(repo.dir, `${p}.mode`, '', 'exec');
  else if (c.op === 'intent') put(repo.dir, p, c.path ?? '', 'file') && git('add', '-N', '--', p);
  else if (c.op === 'assume') git('update-index', '--assume-unchanged', '--', p);
  else if (c.op === 'skip') git('update-index', '--skip-worktree', '--', p);
  else if (c.op === 'nested') {
    if (put(repo.dir, `${dirname(p)}/nested/inner`, 'x', 'file'))
      git('-C', join(repo.dir, dirname(p), 'nested'), 'init', '-q');
  } else if (c.op === 'gitlink')
    git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},${dirname(p)}/module`);
  else if (c.op === 'ignore')
    put(repo.dir, `${c.dir === '' ? '' : `${c.dir}/`}.gitignore`, (c.lines ?? []).join('\n'), 'file');
  else if (c.op === 'version') git('update-index', '--index-version', c.version ?? '2');
  else if (c.op === 'untracked-cache')
    git('-c', 'core.untrackedCache=true', 'status', '--porcelain'), git('update-index', '--untracked-cache');
  else if (c.op === 'attributes') put(repo.dir, '.gitattributes', `${c.line}\n`, 'file');
}

describe('the index reader, alone or beside git status, agrees with git', () => {
  it('lists the same files and gives the same fingerprints on random trees', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(file, { minLength: 1, maxLength: 14 }),
        fc.array(change, { maxLength: 8 }),
        async (files, changes) => {
          const repo = tempRepo({
            [CATALOGUE]: catalogue,
            'a/Dockerfile': 'FROM scratch\n',
            'b/Dockerfile': 'FROM scratch\n',
          });
          repos.push(repo);
          for (const f of files) put(repo.dir, f.path, f.content, f.kind);
          repo.commit();
          for (const c of changes) apply(repo, c);
          expect((await gitSnapshot(repo.dir, 'index')).via).toBe('index');
          expect((await gitSnapshot(repo.dir, 'status')).via).toBe('status');
          const direct = await fingerprints(repo.dir, 'index');
          const beside = await fingerprints(repo.dir, 'status');
          const asked = await fingerprints(repo.dir, 'git');
          expect(direct).toEqual(asked);
          expect(beside).toEqual(asked);
          repo.remove();
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) },
    );
  }, 240_000);
});
