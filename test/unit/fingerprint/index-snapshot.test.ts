// The index reader on the cases a random tree rarely builds: what it refuses (and git answers instead), the
// racy-git rule, SHA-256 repositories, a folder inside the repository, a linked worktree, and no git program.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fingerprintImages, loadCatalogue } from '../../../scripts/lib/fingerprint/index.ts';
import { openWorktreeSource } from '../../../scripts/lib/fingerprint/worktree-source.ts';
import { gitSnapshot } from '../../../scripts/lib/fingerprint/git-worktree-snapshot.ts';
import {
  MTIME_NS,
  MTIME_S,
  CTIME_NS,
  CTIME_S,
  INO,
  SIZE,
  parseGitIndex,
  pathEnd,
} from '../../../scripts/lib/fingerprint/git-index.ts';
import { indexOfEntry, oidHexOf, pathOf } from '../../../scripts/lib/fingerprint/index-entries.ts';
import { DIRTY } from '../../../scripts/lib/fingerprint/entry-state.ts';
import { naiveFingerprint } from '../../support/naive-fingerprint.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const CATALOGUE = 'gitops/manifests/images.yaml';
const catalogue = {
  platform: 'linux/amd64',
  images: {
    svc: { image: 'pharos/svc', application: 'pharos', context: '.', dockerfile: 'svc/Dockerfile', inputs: ['svc'] },
  },
};
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));
// The reader is opt-in; these tests take the opted-in path ('auto' with PHAROS_FINGERPRINT_INDEX=1) but the first.
const optIn = process.env.PHAROS_FINGERPRINT_INDEX;
beforeAll(() => {
  process.env.PHAROS_FINGERPRINT_INDEX = '1';
});
afterAll(() => {
  if (optIn === undefined) delete process.env.PHAROS_FINGERPRINT_INDEX;
  else process.env.PHAROS_FINGERPRINT_INDEX = optIn;
});

function repo(extra: Record<string, string> = {}, init?: (r: TempRepo) => void): TempRepo {
  const r = tempRepo({}, { git: init === undefined });
  repos.push(r);
  init?.(r);
  r.write({
    [CATALOGUE]: JSON.stringify(catalogue),
    'svc/Dockerfile': 'FROM scratch\n',
    'svc/main.txt': 'main\n',
    'svc/lib/a.txt': 'a\n',
    ...extra,
  });
  r.commit();
  return r;
}

async function fingerprint(
  dir: string,
  via: 'auto' | 'index' | 'status' | 'git' = 'auto',
  keep = false,
): Promise<string | undefined> {
  if (!keep) rmSync(join(dir, '.local'), { recursive: true, force: true });
  const source = await openWorktreeSource(dir, via);
  return (await fingerprintImages(source, await loadCatalogue(source)))[0]?.fingerprint;
}

describe('the default snapshot', () => {
  it('is the index file read beside one git status unless PHAROS_FINGERPRINT_INDEX=1, with the same fingerprint', async () => {
    const r = repo();
    writeFileSync(join(r.dir, 'svc/new.txt'), 'untracked\n');
    writeFileSync(join(r.dir, 'svc/main.txt'), 'edited\n');
    process.env.PHAROS_FINGERPRINT_INDEX = '';
    try {
      const snapshot = await gitSnapshot(r.dir);
      expect(snapshot.via).toBe('status');
      if (snapshot.via !== 'status') throw new Error('not the default snapshot');
      expect(snapshot.untracked).toEqual(['svc/new.txt']);
      expect(snapshot.state[indexOfEntry(snapshot.entries, Buffer.from('svc/main.txt'))]).toBe(DIRTY);
      const expected = naiveFingerprint(r.dir, catalogue, 'svc');
      expect(await fingerprint(r.dir)).toBe(expected);
      expect(await fingerprint(r.dir, 'index')).toBe(expected);
      expect(await fingerprint(r.dir, 'git')).toBe(expected);
    } finally {
      process.env.PHAROS_FINGERPRINT_INDEX = '1';
    }
  });

  it("falls back to git's four commands where the index file cannot be read, with the reason", async () => {
    const r = repo();
    const before = await fingerprint(r.dir);
    r.git('update-index', '--split-index');
    process.env.PHAROS_FINGERPRINT_INDEX = '';
    try {
      const snapshot = await gitSnapshot(r.dir);
      expect(snapshot.via).toBe('git');
      expect(snapshot.refusal).toMatch(/split index/);
      expect(await fingerprint(r.dir)).toBe(before);
    } finally {
      process.env.PHAROS_FINGERPRINT_INDEX = '1';
    }
  });

  it('a folder that does not exist is not a repository, as git says: no error escapes the early snapshot', async () => {
    process.env.PHAROS_FINGERPRINT_INDEX = '';
    try {
      const snapshot = await gitSnapshot(join(tmpdir(), 'pharos-no-such-folder', 'nope'));
      expect(snapshot).toMatchObject({ via: 'git', inside: false });
    } finally {
      process.env.PHAROS_FINGERPRINT_INDEX = '1';
    }
  });

  it('reads a folder inside the repository: entries and status records relative to it', async () => {
    const r = repo({ 'other/x.txt': 'x\n' });
    writeFileSync(join(r.dir, 'svc/lib/a.txt'), 'A\n');
    writeFileSync(join(r.dir, 'svc/lib/b.txt'), 'b\n');
    writeFileSync(join(r.dir, 'other/y.txt'), 'y\n');
    const inside = await gitSnapshot(join(r.dir, 'svc'), 'status');
    if (inside.via !== 'status') throw new Error('not the default snapshot');
    expect(inside.prefix).toBe('svc/');
    expect(inside.untracked).toEqual(['lib/b.txt']);
    const dirty = Array.from({ length: inside.entries.count }, (_, i) => i)
      .filter((i) => inside.state[i] === DIRTY)
      .map((i) => pathOf(inside.entries, i, false));
    expect(dirty).toEqual(['lib/a.txt']);
  });
});

describe('what the index reader refuses, git answers', () => {
  const cases: [string, (r: TempRepo) => void, RegExp][] = [
    ['a split index', (r) => r.git('update-index', '--split-index'), /split index/],
    ['a config include', (r) => r.git('config', 'include.path', 'more.conf'), /include/],
    ['a torn index', (r) => truncateSync(join(r.dir, '.git/index'), statSync(join(r.dir, '.git/index')).size - 3), /./],
    ['case folding', (r) => r.git('config', 'core.ignorecase', 'true'), /ignorecase/],
  ];
  for (const [name, spoil, reason] of cases)
    it(`${name}: git's own commands give the snapshot, with the reader's reason`, async () => {
      const r = repo();
      const before = await fingerprint(r.dir);
      spoil(r);
      const snapshot = await gitSnapshot(r.dir);
      expect(snapshot.via).toBe('git');
      expect(snapshot.refusal).toMatch(reason);
      if (name !== 'a torn index') expect(await fingerprint(r.dir)).toBe(before);
    });

  it('a sparse index (sdir entries): git answers', async () => {
    const r = repo({ 'other/x.txt': 'x\n' });
    r.git('sparse-checkout', 'set', '--cone', '--sparse-index', 'svc', 'gitops');
    const snapshot = await gitSnapshot(r.dir);
    expect(snapshot.via).toBe('git');
    expect(snapshot.refusal).toMatch(/sparse index/);
  });

  it('GIT_DIR in the environment: git answers', async () => {
    const r = repo();
    process.env.GIT_DIR = join(r.dir, '.git');
    try {
      expect((await gitSnapshot(r.dir)).refusal).toMatch(/GIT_DIR is set/);
    } finally {
      delete process.env.GIT_DIR;
    }
  });
});

describe('the index reader', () => {
  it('re-reads a racily clean file: same stat as its entry, but written in the tick of the index or after', async () => {
    const r = repo();
    await fingerprint(r.dir); // fills the blob cache with the committed bytes' digest
    // Same size, new bytes; then the entry is given the file's new stat data, as if `git add` had seen it
    // before this write in the same clock tick: only the racy rule can tell.
    const file = join(r.dir, 'svc/main.txt');
    writeFileSync(file, 'MAIN\n');
    const st = statSync(file, { bigint: true });
    const indexFile = join(r.dir, '.git/index');
    const data = readFileSync(indexFile);
    const index = parseGitIndex(data);
    const view = new DataView(data.buffer, data.byteOffset);
    for (let i = 0; i < index.count; i++) {
      if (index.paths.toString('utf8', index.pathStart[i], pathEnd(index, i)) !== 'svc/main.txt') continue;
      const at = index.record[i] as number;
      view.setUint32(at + MTIME_S, Number(st.mtimeNs / 1_000_000_000n));
      view.setUint32(at + MTIME_NS, Number(st.mtimeNs % 1_000_000_000n));
      view.setUint32(at + CTIME_S, Number(st.ctimeNs / 1_000_000_000n));
      view.setUint32(at + CTIME_NS, Number(st.ctimeNs % 1_000_000_000n));
      view.setUint32(at + INO, Number(st.ino & 0xffffffffn));
      view.setUint32(at + SIZE, Number(st.size));
    }
    createHash('sha1')
      .update(data.subarray(0, data.length - 20))
      .digest()
      .copy(data, data.length - 20);
    writeFileSync(indexFile, data);
    utimesSync(indexFile, new Date(Number(st.mtimeNs / 1_000_000n)), new Date(Number(st.mtimeNs / 1_000_000n)));
    const snapshot = await gitSnapshot(r.dir, 'index');
    if (snapshot.via !== 'index') throw new Error('the reader did not answer');
    // racily clean: the content decides, as git's ie_modified does, and it differs
    expect(snapshot.state[indexOfEntry(snapshot.entries, Buffer.from('svc/main.txt'))]).toBe(DIRTY);
    const source = await openWorktreeSource(r.dir, 'index');
    const [result] = await fingerprintImages(source, await loadCatalogue(source));
    expect(result?.fingerprint).toBe(naiveFingerprint(r.dir, catalogue, 'svc'));
  });

  it('reads a SHA-256 repository', async () => {
    const r = repo({}, (t) => t.git('init', '-q', '-b', 'main', '--object-format=sha256'));
    expect((await gitSnapshot(r.dir)).via).toBe('index');
    expect(await fingerprint(r.dir, 'index')).toBe(await fingerprint(r.dir, 'git'));
    expect(await fingerprint(r.dir)).toBe(naiveFingerprint(r.dir, catalogue, 'svc'));
  });

  it('reads a folder inside the repository, and a linked worktree', async () => {
    const r = repo();
    const inner = join(r.dir, 'gitops');
    const index = await gitSnapshot(inner, 'index');
    const git = await gitSnapshot(inner, 'git');
    expect(index.prefix).toBe('gitops/');
    if (index.via !== 'index' || git.via !== 'git') throw new Error('not the snapshots asked for');
    const records = Array.from(
      { length: index.entries.count },
      (_, i) =>
        `${index.entries.mode[i]?.toString(8)} ${oidHexOf(index.entries, i)} 0\t${pathOf(index.entries, i, false)}\0`,
    );
    expect(records.join('')).toBe(git.index.toString('utf8'));
    const linked = `${r.dir}-linked`;
    r.git('worktree', 'add', '-q', linked);
    try {
      expect((await gitSnapshot(linked)).via).toBe('index');
      expect(await fingerprint(linked, 'index')).toBe(await fingerprint(r.dir, 'git'));
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });

  it('runs with no git program on the PATH', async () => {
    const r = repo({ 'svc/new.txt': 'untracked\n', '.gitignore': '*.log\n', 'svc/x.log': 'ignored\n' });
    writeFileSync(join(r.dir, 'svc/main.txt'), 'edited\n');
    const asked = await fingerprint(r.dir, 'git');
    const path = process.env.PATH;
    process.env.PATH = '';
    try {
      expect(await fingerprint(r.dir)).toBe(asked);
      expect(await fingerprint(r.dir, 'auto', true)).toBe(asked); // and again from the caches
    } finally {
      process.env.PATH = path;
    }
  });
});
