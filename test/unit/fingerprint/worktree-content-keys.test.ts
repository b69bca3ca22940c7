import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSnapshot } from '../../../scripts/lib/fingerprint/git-worktree-snapshot.ts';
import { worktreeContentKeys } from '../../../scripts/lib/fingerprint/worktree-content-keys.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

let repo: TempRepo;
beforeEach(() => {
  repo = tempRepo({ 'a/x': '1', 'a/sub/y': '2', 'a-b/z': '3', ab: '4', 'b/w': '5', 'top.txt': '6' });
  repo.commit();
});
afterEach(() => repo.remove());

const keys = async () => worktreeContentKeys(await gitSnapshot(repo.dir));

describe('worktreeContentKeys() names the clean index records under some paths', () => {
  it('gives the same key for the same content, and a key per set of paths', async () => {
    const [first, second] = [await keys(), await keys()];
    expect(first(['a'])).toMatch(/^git-index:[0-9a-f]{64}$/);
    expect(second(['a'])).toBe(first(['a']));
    expect(first(['a', 'b'])).toBe(first(['b', 'a']));
    expect(first(['a'])).not.toBe(first(['b']));
  });

  it('has no key where git reports a change, an untracked file or a deletion, and keeps the others', async () => {
    const clean = await keys();
    writeFileSync(join(repo.dir, 'a/sub/y'), 'changed');
    writeFileSync(join(repo.dir, 'b/new'), 'untracked');
    const dirty = await keys();
    expect(dirty(['a'])).toBeUndefined();
    expect(dirty(['b'])).toBeUndefined();
    expect(dirty(['a-b', 'ab', 'top.txt'])).toBe(clean(['a-b', 'ab', 'top.txt']));
    repo.git('checkout', '--', 'a/sub/y');
    repo.git('rm', '-q', 'a/x');
    expect((await keys())(['a'])).toBeUndefined();
  });

  it('takes a folder as its own run: "a" is neither "a-b/z" nor the file "ab"', async () => {
    const before = await keys();
    writeFileSync(join(repo.dir, 'a-b/z'), 'other');
    writeFileSync(join(repo.dir, 'ab'), 'other');
    repo.commit();
    const after = await keys();
    expect(after(['a'])).toBe(before(['a']));
    expect(after(['a-b'])).not.toBe(before(['a-b']));
    expect(after(['ab'])).not.toBe(before(['ab']));
  });

  it('changes with a committed change of content or mode under the paths', async () => {
    const before = await keys();
    writeFileSync(join(repo.dir, 'a/sub/y'), 'new content');
    repo.commit();
    const content = await keys();
    expect(content(['a'])).not.toBe(before(['a']));
    repo.git('update-index', '--chmod=+x', 'a/x');
    repo.git('commit', '-q', '-m', 'mode');
    expect((await keys())(['a'])).not.toBe(content(['a']));
  });

  it('leaves the toolkit\'s own .local/ out even when someone committed it', async () => {
    const before = await keys();
    repo.write({ '.local/receipt.json': '{}' });
    repo.git('add', '-f', '.local/receipt.json');
    repo.git('commit', '-q', '-m', 'local state committed by mistake');
    const after = await keys();
    expect(after(['.'])).toBe(before(['.']));
    repo.write({ '.local/receipt.json': '{"changed":true}' });
    expect((await keys())(['.'])).toBe(before(['.']));
  });
});
