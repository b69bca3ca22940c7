// readRefFiles against `git for-each-ref` on real repositories: packed and loose refs, peeled tags, symrefs.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRefFiles } from '../../../scripts/lib/host/ref-files.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { encoding: 'utf8' }).trim();

/** What git-fetch-bounded listed with for-each-ref before: id and name of every non-symbolic ref. */
function forEachRef(dir: string): Map<string, string> {
  const out = git(
    dir,
    'for-each-ref',
    '--format=%(if)%(symref)%(then)%(else)%(objectname) %(refname)%(end)',
    'refs/remotes',
    'refs/tags',
  );
  return new Map(
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => [l.slice(41), l.slice(0, 40)]),
  );
}

describe('readRefFiles', () => {
  it('agrees with git for-each-ref over packed, loose, overridden, nested, symbolic and annotated refs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ref-files-'));
    dirs.push(dir);
    git(dir, 'init', '--quiet', '--bare');
    const tree = git(dir, 'hash-object', '-t', 'tree', '-w', '--stdin');
    const one = git(dir, 'commit-tree', '-m', 'one', tree);
    const two = git(dir, 'commit-tree', '-m', 'two', '-p', one, tree);
    git(dir, 'update-ref', 'refs/remotes/origin/main', one);
    git(dir, 'update-ref', 'refs/remotes/origin/deploy-state', one);
    git(dir, 'update-ref', 'refs/remotes/origin/feature/deep/name', two);
    git(dir, 'tag', '-a', '-m', 'annotated', 'v1.0.0', one);
    git(dir, 'tag', 'v1.0.1', two);
    git(dir, 'update-ref', 'refs/heads/main', two);
    git(dir, 'pack-refs', '--all');
    // A loose ref after packing wins over its packed value; a new loose one joins.
    git(dir, 'update-ref', 'refs/remotes/origin/deploy-state', two);
    git(dir, 'tag', 'v2.0.0', two);
    git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    await writeFile(join(dir, 'refs', 'tags', 'v9.lock'), `${one}\n`);
    const read = await readRefFiles(dir, ['refs/remotes', 'refs/tags']);
    expect(read).toEqual(forEachRef(dir));
    expect(read?.get('refs/remotes/origin/deploy-state')).toBe(two);
    expect(read?.has('refs/remotes/origin/HEAD')).toBe(false);
    expect(read?.has('refs/heads/main')).toBe(false);
  });

  it('an empty repository has no refs; a store git may not write as files is left to git (undefined)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ref-files-'));
    dirs.push(dir);
    git(dir, 'init', '--quiet', '--bare');
    expect(await readRefFiles(dir, ['refs/remotes', 'refs/tags'])).toEqual(new Map());
    await mkdir(join(dir, 'reftable'));
    expect(await readRefFiles(dir, ['refs/remotes', 'refs/tags'])).toBeUndefined();
    await rm(join(dir, 'reftable'), { recursive: true });
    await mkdir(join(dir, 'refs', 'remotes'), { recursive: true });
    await writeFile(join(dir, 'refs', 'remotes', 'odd'), 'not an id\n');
    expect(await readRefFiles(dir, ['refs/remotes', 'refs/tags'])).toBeUndefined();
  });
});
