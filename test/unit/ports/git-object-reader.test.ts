// The object reader and readBlobs against a real repository: one `git cat-file --batch-command` answers every question.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitPort } from '../../../scripts/lib/ports/git.ts';
import { openObjectReader } from '../../../scripts/lib/ports/git-object-reader.ts';
import { readBlobs, resolveCommit } from '../../../scripts/lib/host/deploy-state-cache.ts';
import { HostError } from '../../../scripts/lib/host/host-error.ts';

let dir: string;
let commit: string;
const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
const binary = Buffer.from([0, 10, 13, 255, 10, 0]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'object-reader-'));
  git('init', '--quiet', '-b', 'main');
  await mkdir(join(dir, 'channels'));
  await writeFile(join(dir, 'channels', 'staging.json'), '{"a":1}\n');
  await writeFile(join(dir, 'channels', 'with space.json'), 'spaced');
  await writeFile(join(dir, 'binary.bin'), binary);
  await writeFile(join(dir, 'big.txt'), 'x'.repeat(5000));
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '--quiet', '-m', 'one');
  commit = git('rev-parse', 'HEAD');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('openObjectReader', () => {
  it('resolves a ref to its commit and reads blobs, binary bytes and LFs exact, in the order asked', async () => {
    const reader = openObjectReader(gitPort(dir));
    try {
      expect(await resolveCommit(reader, 'refs/heads/main')).toBe(commit);
      // Questions asked together are answered in order by the one process.
      const [a, b] = await Promise.all([reader.info(`${commit}:binary.bin`), reader.info(`${commit}:channels`)]);
      expect(a).toMatchObject({ kind: 'found', type: 'blob', size: binary.length });
      expect(b).toMatchObject({ kind: 'found', type: 'tree' });
      if (a.kind !== 'found') throw new Error('unreachable');
      const [bytes, again] = await Promise.all([reader.contents(a.oid), reader.contents(a.oid)]);
      expect(bytes.equals(binary)).toBe(true);
      expect(again.equals(binary)).toBe(true);
      expect(await reader.info(`${commit}:nope.json`)).toEqual({ kind: 'missing' });
      expect(await reader.info(`${commit}:channels/no such file.json`)).toEqual({ kind: 'missing' });
      await expect(reader.info('a\nb')).rejects.toThrow(/Cannot ask git cat-file/);
    } finally {
      await reader.close();
    }
  });

  it('starts one git process for any number of reads', async () => {
    const spawned: string[][] = [];
    const port = gitPort(dir);
    const counting = { ...port, spawn: (args: readonly string[]) => (spawned.push([...args]), port.spawn(args)) };
    const reads = await readBlobs(
      counting,
      commit,
      ['channels/staging.json', 'channels/with space.json', 'binary.bin', 'missing.json', 'channels', 'big.txt'],
      4096,
    );
    expect(spawned).toEqual([['cat-file', '--batch-command']]);
    expect(reads.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok', 'missing', 'missing', 'too-large']);
    expect(reads[0]?.kind === 'ok' && reads[0].bytes.toString()).toBe('{"a":1}\n');
    expect(reads[1]?.kind === 'ok' && reads[1].bytes.toString()).toBe('spaced');
    expect(reads[5]).toEqual({ kind: 'too-large', size: 5000 });
  });

  it('a commit the repository lacks is an error naming it, as ls-tree was', async () => {
    const absent = 'f'.repeat(40);
    const error = await readBlobs(gitPort(dir), absent, ['channels/staging.json']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).message).toMatch(new RegExp(`Cannot list channels/staging.json at ${absent}`));
  });

  it('an unknown ref fails with what git printed; later questions fail instead of hanging', async () => {
    const reader = openObjectReader(gitPort(dir));
    await expect(resolveCommit(reader, 'refs/remotes/origin/deploy-state')).rejects.toThrow(
      /Cannot read the "deploy-state" commit: git printed "refs\/remotes\/origin\/deploy-state missing"/,
    );
    await reader.close();
    await expect(reader.info('HEAD')).rejects.toThrow(/git cat-file exited 0/);
  });

  it('outside a repository every question fails with git’s own words', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'object-reader-none-'));
    try {
      const reader = openObjectReader(gitPort(empty));
      await expect(reader.info('HEAD')).rejects.toThrow(/git cat-file exited 128: fatal: not a git repository/);
      await reader.close();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
