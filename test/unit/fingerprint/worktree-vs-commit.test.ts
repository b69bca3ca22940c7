import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintImages, loadCatalogue, openSource } from '../../../scripts/lib/fingerprint/index.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const catalogue = {
  platform: 'linux/amd64',
  images: {
    a: { image: 'pharos/a', application: 'pharos', context: '.', dockerfile: 'a/Dockerfile', inputs: ['a', 'shared'] },
    b: { image: 'pharos/b', application: 'pharos', context: '.', dockerfile: 'b/Dockerfile', inputs: ['b', 'shared'] },
    c: { image: 'pharos/c', application: 'pharos', context: 'c', dockerfile: 'c/Dockerfile', inputs: ['c'] },
  },
};

let repo: TempRepo;
let committed: Record<string, string>;

async function fingerprints(rev?: string): Promise<Record<string, string>> {
  const source = await openSource(repo.dir, rev);
  const results = await fingerprintImages(source, await loadCatalogue(source));
  return Object.fromEntries(results.map((r) => [r.name, r.fingerprint]));
}

async function moved(): Promise<string[]> {
  const now = await fingerprints();
  return Object.keys(now).filter((name) => now[name] !== committed[name]);
}

beforeEach(async () => {
  repo = tempRepo({
    'gitops/manifests/images.yaml': JSON.stringify(catalogue),
    '.gitignore': '*.log\n',
    'a/Dockerfile': 'FROM scratch\nCOPY a /a\n',
    'a/main.txt': 'a',
    'b/Dockerfile': 'FROM scratch\nCOPY b /b\n',
    'b/main.txt': 'b',
    'c/Dockerfile': 'FROM scratch\nCOPY . /c\n',
    'c/run.sh': '#!/bin/sh\n',
    'shared/contract.json': '{}',
  });
  repo.commit();
  committed = await fingerprints('HEAD');
});
afterEach(() => repo.remove());

describe('working tree against the commit', () => {
  it('gives the commit fingerprint for a clean checkout, and again from a fresh clone', async () => {
    expect(await fingerprints()).toEqual(committed);
    const clone = tempRepo({}, { git: false });
    try {
      rmSync(clone.dir, { recursive: true });
      repo.git('clone', '-q', repo.dir, clone.dir);
      const source = await openSource(clone.dir, undefined);
      const results = await fingerprintImages(source, await loadCatalogue(source));
      expect(Object.fromEntries(results.map((r) => [r.name, r.fingerprint]))).toEqual(committed);
    } finally {
      clone.remove();
    }
  });

  it('a modified file moves exactly the images whose inputs hold it', async () => {
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a changed');
    expect(await moved()).toEqual(['a']);
  });

  it('a file in a shared input moves every image holding it', async () => {
    writeFileSync(join(repo.dir, 'shared/contract.json'), '{"v":2}');
    expect(await moved()).toEqual(['a', 'b']);
  });

  it('a deleted file moves its images', async () => {
    rmSync(join(repo.dir, 'b/main.txt'));
    expect(await moved()).toEqual(['b']);
  });

  it('an untracked file moves its images, as `git add -A` would stage it', async () => {
    writeFileSync(join(repo.dir, 'shared/new.json'), '{}');
    expect(await moved()).toEqual(['a', 'b']);
  });

  it('an ignored file moves nothing', async () => {
    writeFileSync(join(repo.dir, 'a/debug.log'), 'noise');
    expect(await moved()).toEqual([]);
  });

  it('an excluded file moves nothing, tracked or not', async () => {
    writeFileSync(join(repo.dir, 'a/notes.md'), 'docs');
    writeFileSync(join(repo.dir, 'shared/contract.test.json'), '{}');
    expect(await moved()).toEqual([]);
  });

  it('a mode change moves its image', async () => {
    chmodSync(join(repo.dir, 'c/run.sh'), 0o755);
    expect(await moved()).toEqual(['c']);
  });

  it('a change that is staged but not committed still counts, and reverting it restores the commit fingerprint', async () => {
    writeFileSync(join(repo.dir, 'c/run.sh'), '#!/bin/sh\necho hi\n');
    repo.git('add', 'c/run.sh');
    expect(await moved()).toEqual(['c']);
    repo.git('checkout', 'HEAD', '--', 'c/run.sh');
    expect(await moved()).toEqual([]);
  });

  it('fingerprints a folder inside a larger repository relative to that folder', async () => {
    const outer = tempRepo({});
    try {
      repo.git('archive', '--format=tar', '-o', join(outer.dir, 'p.tar'), 'HEAD');
      outer.git('init', '-q');
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkdir', ['-p', join(outer.dir, 'platform')]);
      execFileSync('tar', ['-xf', join(outer.dir, 'p.tar'), '-C', join(outer.dir, 'platform')]);
      rmSync(join(outer.dir, 'p.tar'));
      outer.commit();
      for (const rev of [undefined, 'HEAD']) {
        const source = await openSource(join(outer.dir, 'platform'), rev);
        const results = await fingerprintImages(source, await loadCatalogue(source));
        expect(Object.fromEntries(results.map((r) => [r.name, r.fingerprint]))).toEqual(committed);
      }
    } finally {
      outer.remove();
    }
  });
});

describe('the blob cache under races', () => {
  it('never remembers, for a blob id, bytes that changed after git vouched for them', async () => {
    rmSync(join(repo.dir, '.local'), { recursive: true, force: true });
    const source = await openSource(repo.dir, undefined); // git looks now: every file clean
    writeFileSync(join(repo.dir, 'a/main.txt'), 'A'); // same size, changed after git looked
    const racy = await fingerprintImages(source, await loadCatalogue(source));
    expect(racy.find((r) => r.name === 'b')?.fingerprint).toBe(committed.b);
    repo.git('checkout', 'HEAD', '--', 'a/main.txt');
    expect(await fingerprints()).toEqual(committed);
    rmSync(join(repo.dir, '.local/fingerprint/results.json'), { force: true });
    expect(await fingerprints()).toEqual(committed);
  });
});
