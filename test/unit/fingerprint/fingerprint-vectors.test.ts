import { afterEach, describe, expect, it } from 'vitest';
import {
  fingerprintImages,
  loadCatalogue,
  openSource,
  FingerprintError,
} from '../../../scripts/lib/fingerprint/index.ts';
import { naiveFingerprint } from '../../support/naive-fingerprint.ts';
import { tempRepo, type FileSpec, type TempRepo } from '../../support/temp-repo.ts';

const CATALOGUE = 'gitops/manifests/images.yaml';
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

type Cat = Parameters<typeof naiveFingerprint>[1];

async function fingerprints(dir: string, rev?: string) {
  const source = await openSource(dir, rev);
  const results = await fingerprintImages(source, await loadCatalogue(source), { encodings: true });
  return Object.fromEntries(results.map((r) => [r.name, r]));
}

/** Commits the files, then checks naive == working tree == commit tree for every image. */
async function agree(catalogue: Cat, files: Record<string, FileSpec>) {
  const repo = tempRepo({ ...files, [CATALOGUE]: JSON.stringify(catalogue) });
  repos.push(repo);
  repo.commit();
  const worktree = await fingerprints(repo.dir);
  const tree = await fingerprints(repo.dir, 'HEAD');
  // Second runs may answer from the result cache: they must agree too.
  const again = [await openSource(repo.dir, undefined), await openSource(repo.dir, 'HEAD')];
  for (const source of again) {
    const results = await fingerprintImages(source, await loadCatalogue(source));
    for (const r of results)
      expect(r.fingerprint, `${source.kind} cached ${r.name}`).toBe(worktree[r.name]?.fingerprint);
  }
  for (const name of Object.keys(catalogue.images)) {
    const expected = naiveFingerprint(repo.dir, catalogue, name);
    expect(worktree[name]?.fingerprint, `worktree ${name}`).toBe(expected);
    expect(tree[name]?.fingerprint, `git tree ${name}`).toBe(expected);
  }
  return worktree;
}

const image = (extra: Partial<Cat['images'][string]> = {}) => ({
  image: 'pharos/x',
  application: 'pharos',
  context: '.',
  dockerfile: 'svc/Dockerfile',
  inputs: ['svc'],
  ...extra,
});

const fileLines = (encoding: string | undefined) => (encoding ?? '').split('\n').filter((l) => l.startsWith('file\t'));

describe('fingerprint/v1 encoding', () => {
  it("a trailing /** excludes files inside a folder, never a file with the folder's name (spec correction)", async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/hack/test': '#!/bin/sh\n',
        'svc/a/test/x': 'fixture\n',
        'svc/test/y': 'fixture\n',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual(['svc/Dockerfile', 'svc/hack/test']);
  });

  it("an image's own exclude replaces the catalogue's for that image only", async () => {
    const y = { ...image({ exclude: ['**/*.txt'] }), image: 'pharos/y' };
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image(), y } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/README.md': '# svc\n',
        'svc/notes.txt': 'n\n',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual(['svc/Dockerfile', 'svc/notes.txt']);
    expect(fileLines(r.y?.encoding).map((l) => l.split('\t')[3])).toEqual(['svc/Dockerfile', 'svc/README.md']);
  });

  it('orders paths bytewise: a-b/x, a.b/y, a/b', async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/a/b': '3',
        'svc/a.b/y': '2',
        'svc/a-b/x': '1',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual([
      'svc/Dockerfile',
      'svc/a-b/x',
      'svc/a.b/y',
      'svc/a/b',
    ]);
  });

  it('orders unicode names by their UTF-8 bytes, astral characters after the rest of the BMP', async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/😀': 'emoji',
        'svc/～': 'fullwidth tilde',
        'svc/日本': 'kanji',
        'svc/é': 'e acute',
        'svc/z': 'z',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual([
      'svc/Dockerfile',
      'svc/z',
      'svc/é',
      'svc/日本',
      'svc/～',
      'svc/😀',
    ]);
  });

  it('records the owner-execute bit as 100755', async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/run.sh': { content: '#!/bin/sh\n', exec: true },
        'svc/data.txt': 'plain',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[1])).toEqual(['100644', '100644', '100755']);
  });

  it('hashes symlinks as their target, never following them, including a symlink to a directory', async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/real/file.txt': 'content',
        'svc/link-to-file': { symlink: 'real/file.txt' },
        'svc/link-to-dir': { symlink: 'real' },
        'svc/dangling': { symlink: '../nowhere' },
      },
    );
    const lines = fileLines(r.x?.encoding);
    expect(lines.filter((l) => l.startsWith('file\t120000\t')).map((l) => l.split('\t')[3])).toEqual([
      'svc/dangling',
      'svc/link-to-dir',
      'svc/link-to-file',
    ]);
    expect(lines.some((l) => l.endsWith('svc/link-to-dir/file.txt'))).toBe(false);
  });

  it('sorts args bytewise by key and writes target and platform overrides', async () => {
    const catalogue = {
      platform: 'linux/amd64',
      images: {
        x: image({ args: { b: '2', B: '1', a: '3' }, target: 'web', platform: 'linux/arm64' }),
        y: { ...image(), image: 'pharos/y' },
      },
    };
    const r = await agree(catalogue, { 'svc/Dockerfile': 'FROM scratch AS web\n' });
    expect(r.x?.encoding?.split('\n').slice(1, 8)).toEqual([
      'platform\tlinux/arm64',
      'context\t.',
      'dockerfile\tsvc/Dockerfile',
      'target\tweb',
      'arg\tB\t1',
      'arg\ta\t3',
      'arg\tb\t2',
    ]);
    expect(r.y?.encoding?.split('\n').slice(1, 5)).toEqual([
      'platform\tlinux/amd64',
      'context\t.',
      'dockerfile\tsvc/Dockerfile',
      'target\t',
    ]);
    expect(r.x?.fingerprint).not.toBe(r.y?.fingerprint);
  });

  it('excludes tests, docs and markdown (dotfiles too) but never the Dockerfile', async () => {
    const r = await agree(
      { platform: 'linux/amd64', images: { x: image({ dockerfile: 'svc/docs/Dockerfile' }) } },
      {
        'svc/docs/Dockerfile': 'FROM scratch\n',
        'svc/docs/guide.txt': 'excluded',
        'svc/tests/t.sh': 'excluded',
        'svc/test/t.sh': 'excluded',
        'svc/__tests__/a.js': 'excluded',
        'svc/src/a.test.ts': 'excluded',
        'svc/src/a.spec.js': 'excluded',
        'svc/.notes.md': 'excluded dotfile',
        'svc/.hidden/README.md': 'excluded',
        'svc/src/main.ts': 'kept',
        'svc/.env.example': 'kept',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual([
      'svc/.env.example',
      'svc/docs/Dockerfile',
      'svc/src/main.ts',
    ]);
  });

  it('honours a catalogue exclude list instead of the defaults', async () => {
    const r = await agree(
      { platform: 'linux/amd64', exclude: ['**/*.log', 'svc/?.tmp'], images: { x: image() } },
      {
        'svc/Dockerfile': 'FROM scratch\n',
        'svc/README.md': 'kept now',
        'svc/a.tmp': 'excluded',
        'svc/ab.tmp': 'kept',
        'svc/deep/x.log': 'excluded',
      },
    );
    expect(fileLines(r.x?.encoding).map((l) => l.split('\t')[3])).toEqual([
      'svc/Dockerfile',
      'svc/README.md',
      'svc/ab.tmp',
    ]);
  });

  it('refuses a submodule under an input, from the commit and from the working tree', async () => {
    const repo = tempRepo({
      [CATALOGUE]: JSON.stringify({ platform: 'linux/amd64', images: { x: image() } }),
      'svc/Dockerfile': 'FROM scratch\n',
    });
    repos.push(repo);
    const head = repo.commit();
    repo.git('update-index', '--add', '--cacheinfo', `160000,${head},svc/vendor/lib`);
    repo.git('commit', '-q', '-m', 'add submodule');
    for (const rev of ['HEAD', undefined]) {
      const error = await fingerprints(repo.dir, rev).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FingerprintError);
      expect((error as FingerprintError).code).toBe('submodule');
      expect((error as FingerprintError).message).toContain('svc/vendor/lib');
    }
  });

  it('refuses an untracked nested repository that holds an input, instead of listing none of its files', async () => {
    const repo = tempRepo({
      [CATALOGUE]: JSON.stringify({
        platform: 'linux/amd64',
        images: { x: { ...image(), inputs: ['svc', 'lib/shared/src'] } },
      }),
      'svc/Dockerfile': 'FROM scratch\n',
      'lib/shared/src/a.ts': 'export {};\n',
    });
    repos.push(repo);
    repo.commit();
    repo.git('rm', '-rq', '--cached', 'lib/shared');
    repo.git('-C', 'lib/shared', 'init', '-q'); // git now lists "lib/shared/" and never looks inside it
    const error = await fingerprints(repo.dir, undefined).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'submodule', message: expect.stringContaining('"lib/shared"') });
  });

  it('refuses a path with a newline instead of escaping it', async () => {
    const repo = tempRepo({
      [CATALOGUE]: JSON.stringify({ platform: 'linux/amd64', images: { x: image() } }),
      'svc/Dockerfile': 'FROM scratch\n',
      'svc/bad\nname': 'x',
    });
    repos.push(repo);
    repo.commit();
    for (const rev of ['HEAD', undefined]) {
      await expect(fingerprints(repo.dir, rev)).rejects.toMatchObject({ code: 'unsafe-path' });
    }
  });
});
