// The runner's side of the bundle protocol, with real git: what a truncated upload, an incremental bundle and a
// bundle of another commit do to the runner's checkout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, readdir, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { gitPort } from '../../../scripts/lib/ports/git.ts';
import { createBundle } from '../../../scripts/lib/runner/send-bundle.ts';
import { haveCommits, receiveBundle } from '../../../scripts/lib/runner/receive-bundle.ts';
import { tempRepo } from '../../support/temp-repo.ts';
import type { TempRepo } from '../../support/temp-repo.ts';

let repo: TempRepo;
let root = '';
const commits: string[] = [];

beforeAll(async () => {
  repo = tempRepo();
  for (const n of [1, 2, 3]) {
    repo.write({ [`f${n}.txt`]: `${n}\n`, [`big${n}.txt`]: `${String(n).repeat(4096)}\n` });
    commits.push(repo.commit(`c${n}`));
  }
  root = join(repo.dir, '..', 'runner-root');
});
afterAll(async () => {
  repo.remove();
  await rm(root, { recursive: true, force: true });
});

const bundleBytes = async (commit: string, have: string[] = []) => {
  const bundle = await createBundle(gitPort(repo.dir), commit, have);
  try {
    return await readFile(bundle.file);
  } finally {
    await bundle.remove();
  }
};

describe('receiveBundle() on the runner', () => {
  it('a truncated upload (a link dropped mid-way) is refused and leaves no bundle and no checkout change', async () => {
    const bytes = await bundleBytes(commits[0]!);
    await expect(
      receiveBundle(root, commits[0]!, Readable.from([bytes.subarray(0, Math.floor(bytes.length / 2))])),
    ).rejects.toThrow(
      /^Cannot receive the bundle \(the bundle is incomplete or damaged\): git (bundle verify|fetch --quiet) failed/,
    );
    expect(await readdir(join(root, 'incoming'))).toEqual([]);
    expect(await haveCommits(root)).toEqual([]);
  });

  it('checks out the commit, then accepts an incremental bundle that leaves out what the runner has', async () => {
    await receiveBundle(root, commits[0]!, Readable.from([await bundleBytes(commits[0]!)]));
    expect(await haveCommits(root)).toEqual([commits[0]]);
    const full = await bundleBytes(commits[2]!);
    const incremental = await bundleBytes(commits[2]!, await haveCommits(root));
    expect(incremental.length).toBeLessThan(full.length);
    const received = await receiveBundle(root, commits[2]!, Readable.from([incremental]));
    expect(received.checkout).toBe(join(root, 'checkout'));
    expect(await readFile(join(root, 'checkout', 'f3.txt'), 'utf8')).toBe('3\n');
  });

  it('refuses an announced commit id that is not 40 hex before reading anything', async () => {
    await expect(receiveBundle(root, 'HEAD; rm -rf /', Readable.from([]))).rejects.toThrow(/not a 40-hex commit id/);
  });
});
