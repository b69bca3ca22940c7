// The index reader on index files written by git itself: versions 2, 3 and 4 (`git update-index --index-version`),
// the untracked cache (`core.untrackedCache=true`), and what it refuses (a split index, an unknown required
// extension), where git's own commands answer instead with the same fingerprints.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { IndexRefusal, parseGitIndex } from '../../../scripts/lib/fingerprint/git-index.ts';
import { oidHexOf, pathOf } from '../../../scripts/lib/fingerprint/index-entries.ts';
import { gitSnapshot } from '../../../scripts/lib/fingerprint/git-worktree-snapshot.ts';
import type { GitWorktreeSnapshot } from '../../../scripts/lib/fingerprint/git-worktree-snapshot.ts';
import { fingerprintImages, loadCatalogue } from '../../../scripts/lib/fingerprint/index.ts';
import { openWorktreeSource } from '../../../scripts/lib/fingerprint/worktree-source.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

const catalogue = {
  platform: 'linux/amd64',
  images: {
    svc: { image: 'pharos/svc', application: 'pharos', context: '.', dockerfile: 'svc/Dockerfile', inputs: ['svc'] },
  },
};

function repo(): TempRepo {
  const r = tempRepo({
    'gitops/manifests/images.yaml': JSON.stringify(catalogue),
    'svc/Dockerfile': 'FROM scratch\n',
    'svc/src/module-with-a-long-name-a.ts': 'a\n',
    'svc/src/module-with-a-long-name-b.ts': 'b\n',
    'svc/src/deeper/module-with-a-long-name-c.ts': 'c\n',
    'svc/ünïcode/日本.txt': 'x\n',
    'svc/run.sh': { content: '#!/bin/sh\n', exec: true },
    'svc/link': { symlink: 'run.sh' },
    'other/readme.md': 'other\n',
  });
  repos.push(r);
  r.commit();
  return r;
}

/** `git ls-files -s -z` as `<mode> <oid> <stage>\t<path>` lines, for comparing with the reader. */
const lsFiles = (r: TempRepo) => r.git('ls-files', '-s', '-z').split('\0').filter(Boolean);

/** What a snapshot says, in one form for both: ls-files records, the paths whose disk differs, untracked ones. */
function view(s: GitWorktreeSnapshot) {
  if (s.via !== 'git') {
    const { entries } = s;
    const path = (i: number) => pathOf(entries, i, false);
    return {
      records: Array.from(
        { length: entries.count },
        (_, i) => `${(entries.mode[i] as number).toString(8)} ${oidHexOf(entries, i)} ${entries.stage[i]}\t${path(i)}`,
      ),
      changed: Array.from({ length: entries.count }, (_, i) => i)
        .filter((i) => s.state[i] !== 0)
        .map(path),
      untracked: [...s.untracked].sort(),
      nested: [...s.nested].sort(),
    };
  }
  const status = s.status.toString('utf8').split('\0').filter(Boolean);
  const untracked = status.filter((r) => r.startsWith('? ')).map((r) => r.slice(2));
  return {
    records: s.index.toString('utf8').split('\0').filter(Boolean),
    // porcelain v2: `1 <XY> ... <path>`; the worktree side (Y) is what the reader compares
    changed: status
      .filter((r) => r.startsWith('1 ') && r[3] !== '.')
      .map((r) => r.split(' ').slice(8).join(' '))
      .sort(),
    untracked: untracked.filter((p) => !p.endsWith('/')).sort(),
    nested: untracked
      .filter((p) => p.endsWith('/'))
      .map((p) => p.slice(0, -1))
      .sort(),
  };
}

async function fingerprint(dir: string, via: 'index' | 'git'): Promise<string | undefined> {
  rmSync(join(dir, '.local'), { recursive: true, force: true });
  const source = await openWorktreeSource(dir, via);
  return (await fingerprintImages(source, await loadCatalogue(source)))[0]?.fingerprint;
}

describe('index versions 2, 3 and 4, written by git', () => {
  for (const version of ['2', '3', '4'])
    it(`version ${version}: the same entries as ls-files, the same snapshot and fingerprint as git`, async () => {
      const r = repo();
      if (version === '3') {
        writeFileSync(join(r.dir, 'svc/intent.txt'), 'intent\n');
        r.git('add', '-N', 'svc/intent.txt'); // intent-to-add sets an extended flag: git writes version 3
      }
      r.git('update-index', '--index-version', version);
      const index = parseGitIndex(readFileSync(join(r.dir, '.git/index')));
      expect(index.version).toBe(Number(version));
      expect(view(await gitSnapshot(r.dir, 'index')).records).toEqual(lsFiles(r));
      // An edit, a deletion, a type change, an untracked and an ignored file: the reader sees what git sees.
      writeFileSync(join(r.dir, 'svc/src/module-with-a-long-name-a.ts'), 'edited\n');
      unlinkSync(join(r.dir, 'svc/src/module-with-a-long-name-b.ts'));
      writeFileSync(join(r.dir, 'svc/src/new.ts'), 'new\n'); // same folder, same count of names
      unlinkSync(join(r.dir, 'svc/link'));
      symlinkSync('Dockerfile', join(r.dir, 'svc/link'));
      writeFileSync(join(r.dir, '.gitignore'), '*.log\n');
      writeFileSync(join(r.dir, 'svc/debug.log'), 'ignored\n');
      expect(view(await gitSnapshot(r.dir, 'index'))).toEqual(view(await gitSnapshot(r.dir, 'git')));
      expect(view(await gitSnapshot(r.dir, 'status'))).toEqual(view(await gitSnapshot(r.dir, 'git')));
      expect(await fingerprint(r.dir, 'index')).toBe(await fingerprint(r.dir, 'git'));
    });

  it('with the untracked cache (core.untrackedCache=true): reads past it, lists what git lists', async () => {
    const r = repo();
    r.git('config', 'core.untrackedCache', 'true');
    writeFileSync(join(r.dir, 'svc/untracked.txt'), 'new\n');
    r.git('status', '--porcelain'); // fills the cache
    r.git('update-index', '--untracked-cache');
    const index = parseGitIndex(readFileSync(join(r.dir, '.git/index')));
    expect(index.untrackedCache).toBe(true);
    const snapshot = view(await gitSnapshot(r.dir, 'index'));
    expect(snapshot.untracked).toContain('svc/untracked.txt');
    expect(snapshot).toEqual(view(await gitSnapshot(r.dir, 'git')));
    expect(await fingerprint(r.dir, 'index')).toBe(await fingerprint(r.dir, 'git'));
  });

  it('a tracked folder replaced by a symlink: its entries are gone, the symlink is untracked', async () => {
    const r = repo();
    rmSync(join(r.dir, 'svc/src'), { recursive: true });
    symlinkSync('../other', join(r.dir, 'svc/src'));
    const snapshot = view(await gitSnapshot(r.dir, 'index'));
    expect(snapshot.untracked).toContain('svc/src');
    expect(snapshot).toEqual(view(await gitSnapshot(r.dir, 'git')));
    expect(await fingerprint(r.dir, 'index')).toBe(await fingerprint(r.dir, 'git'));
  });
});

describe('what the reader refuses', () => {
  it('a split index (core.splitIndex): refused by name, and git answers with the same fingerprint', async () => {
    const r = repo();
    const before = await fingerprint(r.dir, 'index');
    r.git('update-index', '--split-index');
    expect(() => parseGitIndex(readFileSync(join(r.dir, '.git/index')))).toThrow(/split index/);
    await expect(gitSnapshot(r.dir, 'index')).rejects.toThrow(/split index/);
    process.env.PHAROS_FINGERPRINT_INDEX = '1'; // opted in: git answers, with the reader's reason
    try {
      const snapshot = await gitSnapshot(r.dir);
      expect(snapshot.via).toBe('git');
      expect(snapshot.refusal).toMatch(/split index/);
    } finally {
      delete process.env.PHAROS_FINGERPRINT_INDEX;
    }
    expect(await fingerprint(r.dir, 'git')).toBe(before);
  });

  it('an extension it does not know and must not skip (a lower-case signature)', () => {
    const r = repo();
    const data = readFileSync(join(r.dir, '.git/index'));
    const body = Buffer.concat([
      data.subarray(0, data.length - 20),
      Buffer.from('zzzz'),
      Buffer.from([0, 0, 0, 4]),
      Buffer.from('data'),
    ]);
    const spoiled = Buffer.concat([body, createHash('sha1').update(body).digest()]);
    expect(() => parseGitIndex(spoiled)).toThrow(IndexRefusal);
    expect(() => parseGitIndex(spoiled)).toThrow(/required extension "zzzz"/);
  });
});
