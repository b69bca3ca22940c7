// The fetch size limit on both layouts a host has: the bare cache `cache/deploy-state.git` and the document's install,
// the reconciler clone `checkout/`, whose packs land in `.git/objects/pack`. Real git, a 3 MiB fetch against 1 MiB.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { gitFetchBounded } from '../../../scripts/lib/host/git-fetch-bounded.ts';

let dir: string;
let source: string;
const git = (cwd: string, args: string[]) => execOk(exec, 'git', ['-C', cwd, ...args]);
const FETCH = (from: string) => ['--quiet', '--no-tags', from, '+refs/heads/main:refs/remotes/origin/main'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fetch-bounded-'));
  source = join(dir, 'source');
  await execOk(exec, 'git', ['init', '--quiet', '--initial-branch=main', source]);
  await git(source, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '--allow-empty', '-m', 'one']);
  await execOk(exec, 'git', ['clone', '--quiet', '--bare', source, join(dir, 'cache.git')]);
  await execOk(exec, 'git', ['clone', '--quiet', '--branch', 'main', '--single-branch', source, join(dir, 'checkout')]);
  await writeFile(join(source, 'big.bin'), randomBytes(3 * 1024 * 1024));
  await git(source, ['add', 'big.bin']);
  await git(source, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'a large file']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gitFetchBounded', () => {
  it.each([
    ['the bare cache', 'cache.git', 'objects/pack'],
    ['the reconciler checkout (a clone with .git/)', 'checkout', '.git/objects/pack'],
  ])('%s: a 3 MiB fetch over a 1 MiB limit is refused and undone', async (_, name, packs) => {
    const repo = join(dir, name);
    const before = (await readdir(join(repo, packs))).sort();
    const refs = (await git(repo, ['for-each-ref'])).stdout.toString();
    await expect(
      gitFetchBounded(repo, FETCH(source), { timeoutMs: 60_000, maxBytes: 1024 * 1024 }),
    ).rejects.toMatchObject({ code: 'fetch-too-large' });
    expect((await readdir(join(repo, packs))).sort()).toEqual(before);
    expect((await git(repo, ['for-each-ref'])).stdout.toString()).toBe(refs);
  });

  it('the checkout fetches within the limit', async () => {
    const repo = join(dir, 'checkout');
    const fetched = await gitFetchBounded(repo, FETCH(source), { timeoutMs: 60_000, maxBytes: 8 * 1024 * 1024 });
    expect(fetched.code).toBe(0);
    expect((await git(repo, ['rev-parse', 'refs/remotes/origin/main'])).stdout.toString().trim()).toBe(
      (await git(source, ['rev-parse', 'HEAD'])).stdout.toString().trim(),
    );
  });
});
