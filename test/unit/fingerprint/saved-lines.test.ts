// A save under an image is answered from the lines saved against the same index file, with the changed files hashed
// again: the fingerprints are those a full computation gives, and anything more than new bytes is computed in full.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fingerprintImages, loadCatalogue, openSource } from '../../../scripts/lib/fingerprint/index.ts';
import type { TreeSource } from '../../../scripts/lib/fingerprint/tree-source.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const catalogue = {
  platform: 'linux/amd64',
  images: {
    a: { image: 'p/a', application: 'p', context: '.', dockerfile: 'a/Dockerfile', inputs: ['a', 'shared'] },
    b: { image: 'p/b', application: 'p', context: '.', dockerfile: 'b/Dockerfile', inputs: ['b', 'shared'] },
    c: {
      image: 'p/c',
      application: 'p',
      context: '.',
      dockerfile: 'c/Dockerfile',
      inputs: ['c'],
      exclude: ['**/*.md'],
    },
  },
};

let repo: TempRepo;
beforeEach(() => {
  repo = tempRepo({
    'gitops/manifests/images.yaml': JSON.stringify(catalogue),
    'a/Dockerfile': 'FROM scratch\n',
    'a/main.txt': 'a',
    'a/run.sh': '#!/bin/sh\n',
    'b/Dockerfile': 'FROM scratch\n',
    'b/main.txt': 'b',
    'c/Dockerfile': 'FROM scratch\n',
    'c/notes.md': 'notes',
    'c/main.txt': 'c',
    'shared/contract.json': '{}',
  });
  symlinkSync('main.txt', join(repo.dir, 'a/link'));
  repo.commit();
});
afterEach(() => repo.remove());

/** Fingerprints through this run's caches, and how many times the index was listed to get them. */
async function run(): Promise<{ prints: Record<string, string>; listed: number }> {
  const source = await openSource(repo.dir, undefined);
  let listed = 0;
  const counting: TreeSource = { ...source, list: (...args) => (listed++, source.list(...args)) };
  const results = await fingerprintImages(counting, await loadCatalogue(source));
  return { prints: Object.fromEntries(results.map((r) => [r.name, `${r.files} ${r.fingerprint}`])), listed };
}

/** What a run with no cache at all gives, the caches of the runs around it left as they were. */
async function fresh(): Promise<Record<string, string>> {
  const local = join(repo.dir, '.local');
  const aside = join(mkdtempSync(join(tmpdir(), 'pharos-lines-aside-')), 'local');
  if (existsSync(local)) renameSync(local, aside);
  try {
    const source = await openSource(repo.dir, undefined);
    const results = await fingerprintImages(source, await loadCatalogue(source));
    return Object.fromEntries(results.map((r) => [r.name, `${r.files} ${r.fingerprint}`]));
  } finally {
    rmSync(local, { recursive: true, force: true });
    if (existsSync(aside)) renameSync(aside, local);
    rmSync(dirname(aside), { recursive: true, force: true });
  }
}

const savedLines = () => {
  const dir = join(repo.dir, '.local', 'fingerprint', 'lines');
  return existsSync(dir) ? readdirSync(dir).length : 0;
};

describe('a save under an image', () => {
  it('is computed in full the first time, then answered from its saved lines, with the fingerprints a full run gives', async () => {
    await run(); // warm: every image by its quick key
    expect(savedLines()).toBe(0);
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a, saved once');
    const first = await run();
    expect(first.listed).toBe(1);
    expect(first.prints).toEqual(await fresh());
    expect(savedLines()).toBe(1); // a's lines only: b and c are answered by their quick keys
    for (const text of ['a, saved twice', 'a, saved three times', 'a']) {
      writeFileSync(join(repo.dir, 'a/main.txt'), text);
      const next = await run();
      expect(next.listed).toBe(0);
      expect(next.prints).toEqual(await fresh());
    }
  });

  it('hashes a file shared by several images once for all of them, and a second file changed since', async () => {
    await run();
    writeFileSync(join(repo.dir, 'shared/contract.json'), '{"v":1}');
    await run();
    writeFileSync(join(repo.dir, 'shared/contract.json'), '{"v":2}');
    writeFileSync(join(repo.dir, 'b/main.txt'), 'b, changed too');
    const next = await run();
    expect(next.listed).toBe(0);
    expect(next.prints).toEqual(await fresh());
  });

  it('goes on from saved lines after a `git add`: a staged file holds the index’s bytes while it is not touched', async () => {
    await run();
    writeFileSync(join(repo.dir, 'a/run.sh'), '#!/bin/sh\n# staged\n');
    repo.git('add', 'a/run.sh');
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a1');
    const first = await run(); // a new index: computed in full, lines saved
    expect(first.listed).toBe(1);
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a2');
    const next = await run();
    expect(next.listed).toBe(0);
    expect(next.prints).toEqual(await fresh());
    writeFileSync(join(repo.dir, 'a/run.sh'), '#!/bin/sh\n# staged, then changed again\n');
    const again = await run(); // changed on disk now too: hashed again, as any changed file
    expect(again.listed).toBe(0);
    expect(again.prints).toEqual(await fresh());
  });

  it('follows a symlink moved to another target, and ignores a change to a file the image excludes', async () => {
    await run();
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a1');
    writeFileSync(join(repo.dir, 'c/main.txt'), 'c1');
    await run();
    unlinkSync(join(repo.dir, 'a/link'));
    symlinkSync('run.sh', join(repo.dir, 'a/link'));
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a2');
    writeFileSync(join(repo.dir, 'c/notes.md'), 'excluded, changed');
    writeFileSync(join(repo.dir, 'c/main.txt'), 'c2');
    const next = await run();
    expect(next.listed).toBe(0);
    expect(next.prints).toEqual(await fresh());
  });

  it('is computed in full for anything more than new bytes: a deletion, a new file, a mode, a reverted path, a git add', async () => {
    const changes: [string, () => void][] = [
      ['deletion', () => rmSync(join(repo.dir, 'a/run.sh'))],
      ['untracked file', () => writeFileSync(join(repo.dir, 'a/new.txt'), 'new')],
      ['mode', () => chmodSync(join(repo.dir, 'a/main.txt'), 0o755)],
      // changed when the lines were saved, back to the index's bytes now: only the index has them
      ['reverted path', () => repo.git('checkout', '--', 'a/run.sh')],
      ['git add', () => repo.git('add', 'a/main.txt')],
      ['attributes', () => writeFileSync(join(repo.dir, 'a/.gitattributes'), '# none\n')],
    ];
    for (const [what, change] of changes) {
      repo.git('reset', '-q', '--hard');
      repo.git('clean', '-qfd', '-e', '.local');
      await run();
      writeFileSync(join(repo.dir, 'a/main.txt'), `a before the ${what}`);
      writeFileSync(join(repo.dir, 'a/run.sh'), `#!/bin/sh\n# before the ${what}\n`);
      await run(); // a's lines saved, with a/main.txt and a/run.sh changed
      if (what === 'attributes') {
        writeFileSync(join(repo.dir, 'a/.gitattributes'), '# none\n');
        repo.git('add', 'a/.gitattributes');
        repo.git('commit', '-q', '-m', 'attributes');
        await run();
        writeFileSync(join(repo.dir, 'a/main.txt'), 'a, with attributes');
        await run();
        writeFileSync(join(repo.dir, 'a/.gitattributes'), '# still none\n');
      } else change();
      const next = await run();
      expect(next.listed, what).toBe(1);
      expect(next.prints, what).toEqual(await fresh());
    }
  });

  it('reads an altered or foreign lines file as absent, and computes in full', async () => {
    await run();
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a1');
    await run();
    const dir = join(repo.dir, '.local', 'fingerprint', 'lines');
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file as string), 'pharos-fingerprint-lines/1 0000\n{"key":"x","changed":[],"lines":[]}');
    writeFileSync(join(repo.dir, 'a/main.txt'), 'a2');
    const next = await run();
    expect(next.listed).toBe(1);
    expect(next.prints).toEqual(await fresh());
  });
});
