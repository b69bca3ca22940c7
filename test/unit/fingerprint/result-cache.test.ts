import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintImages, loadCatalogue, openSource } from '../../../scripts/lib/fingerprint/index.ts';
import type { TreeSource } from '../../../scripts/lib/fingerprint/index.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const catalogue = {
  platform: 'linux/amd64',
  images: {
    a: { image: 'pharos/a', application: 'pharos', context: '.', dockerfile: 'a/Dockerfile', inputs: ['a'] },
    b: { image: 'pharos/b', application: 'pharos', context: '.', dockerfile: 'b/Dockerfile', inputs: ['b'] },
  },
};

let repo: TempRepo;
beforeEach(() => {
  repo = tempRepo({
    'gitops/manifests/images.yaml': JSON.stringify(catalogue),
    'a/Dockerfile': 'FROM scratch\n',
    'b/Dockerfile': 'FROM scratch\n',
  });
  repo.commit();
});
afterEach(() => repo.remove());

/** Fingerprints and reports whether the source had to list files (a cache miss), and which paths it listed. */
async function run(
  rev?: string,
  images?: string[],
): Promise<{ listed: boolean; paths: string[]; prints: Record<string, string>; indexKeys: number }> {
  const source: TreeSource = await openSource(repo.dir, rev);
  const list = vi.spyOn(source, 'list');
  const contentKey = source.contentKey ? vi.spyOn(source, 'contentKey') : undefined;
  const results = await fingerprintImages(source, await loadCatalogue(source), { images });
  const paths = list.mock.calls.flatMap(([prefixes]) => [...prefixes]).sort();
  return {
    listed: list.mock.calls.length > 0,
    paths,
    prints: Object.fromEntries(results.map((r) => [r.name, r.fingerprint])),
    // content keys built from the index entries (what the index file's checksum spares a warm run)
    indexKeys: contentKey?.mock.calls.length ?? 0,
  };
}

describe('the fingerprint result cache', () => {
  it('answers a clean working tree and an unchanged commit without listing files', async () => {
    for (const rev of [undefined, 'HEAD']) {
      const first = await run(rev);
      expect(first.listed).toBe(true);
      const second = await run(rev);
      expect(second.listed).toBe(false);
      expect(second.prints).toEqual(first.prints);
      expect((await run(rev, ['b'])).listed).toBe(false);
    }
  });

  it("answers a warm working tree by the index file's checksum alone: no index entry is read", async () => {
    await run();
    const warm = await run();
    expect(warm).toMatchObject({ listed: false, indexKeys: 0 });
  });

  it('after a `git add` elsewhere, answers from the content keys without listing, then by the checksum again', async () => {
    const clean = await run();
    writeFileSync(join(repo.dir, 'notes.txt'), 'outside every input');
    repo.git('add', 'notes.txt'); // the index, and so its checksum, changes; nothing under a or b does
    const added = await run();
    expect(added).toMatchObject({ listed: false, indexKeys: 2, prints: clean.prints });
    expect(await run()).toMatchObject({ listed: false, indexKeys: 0, prints: clean.prints });
  });

  it('a change staged under an input (disk and index agree) is computed, and cached under the content key only', async () => {
    await run();
    writeFileSync(join(repo.dir, 'a/staged.txt'), 'staged');
    repo.git('add', 'a/staged.txt');
    const staged = await run();
    expect(staged.paths).toEqual(['a', 'a/Dockerfile']);
    const again = await run();
    // git status still reports the staged file, so the checksum key is not used for a; the entries' key answers
    expect(again).toMatchObject({ listed: false, prints: staged.prints });
    expect(again.indexKeys).toBe(1);
  });

  it('computes again once the tree is dirty, and again from the cache once it is committed', async () => {
    const clean = await run();
    writeFileSync(join(repo.dir, 'a/new.txt'), 'x');
    const dirty = await run();
    expect(dirty.listed).toBe(true);
    expect(dirty.prints.a).not.toBe(clean.prints.a);
    expect(dirty.prints.b).toBe(clean.prints.b);
    repo.commit();
    const committed = await run('HEAD');
    expect(committed.prints).toEqual(dirty.prints);
    const cleanAgain = await run();
    expect(cleanAgain.prints).toEqual(dirty.prints);
    expect((await run()).listed).toBe(false);
  });

  it('misses when the image definition changes, even with the same content', async () => {
    await run();
    const changed = { ...catalogue, images: { ...catalogue.images, a: { ...catalogue.images.a, args: { X: '1' } } } };
    writeFileSync(join(repo.dir, 'gitops/manifests/images.yaml'), JSON.stringify(changed));
    repo.commit();
    await run();
    const before = await run('HEAD~1');
    const after = await run('HEAD');
    expect(after.prints.a).not.toBe(before.prints.a);
    expect(after.prints.b).toBe(before.prints.b);
  });

  it('recomputes only the image whose inputs changed: the others stay answered from the cache', async () => {
    const clean = await run();
    writeFileSync(join(repo.dir, 'a/Dockerfile'), 'FROM scratch\nRUN true\n');
    const dirty = await run();
    expect(dirty.paths).toEqual(['a', 'a/Dockerfile']);
    expect(dirty.prints.a).not.toBe(clean.prints.a);
    expect(dirty.prints.b).toBe(clean.prints.b);
    const again = await run();
    // A dirty image has no key; the same save again is answered from its saved lines, listing nothing.
    expect(again.paths).toEqual([]);
    expect(again.prints).toEqual(dirty.prints);
  });

  it('counts an untracked file under an input as a change of that image only, and a change outside every input as none', async () => {
    const clean = await run();
    writeFileSync(join(repo.dir, 'b/extra.txt'), 'new');
    writeFileSync(join(repo.dir, 'notes.txt'), 'outside every input');
    const dirty = await run();
    expect(dirty.paths).toEqual(['b', 'b/Dockerfile']);
    expect(dirty.prints.a).toBe(clean.prints.a);
    expect(dirty.prints.b).not.toBe(clean.prints.b);
  });

  it('gives the same fingerprints from the cache as a fresh computation after edits, commits and reverts', async () => {
    const fresh = async () => {
      const source = await openSource(repo.dir, undefined);
      const results = await fingerprintImages(source, await loadCatalogue(source), { encodings: true });
      return Object.fromEntries(results.map((r) => [r.name, r.fingerprint]));
    };
    await run();
    for (const step of [
      () => writeFileSync(join(repo.dir, 'a/x.txt'), '1'),
      () => repo.commit(),
      () => writeFileSync(join(repo.dir, 'a/x.txt'), '2'),
      () => repo.git('checkout', '--', 'a/x.txt'),
      () => writeFileSync(join(repo.dir, 'b/Dockerfile'), 'FROM scratch\n# b\n'),
      () => repo.commit(),
      () => repo.git('reset', '-q', '--hard', 'HEAD~1'),
    ]) {
      step();
      expect((await run()).prints).toEqual(await fresh());
    }
  });

  it('never answers from the cache an image whose inputs a .gitattributes conversion may change, and still answers the others', async () => {
    repo.write({ 'b/.gitattributes': '*.txt text eol=crlf\n', 'b/x.txt': 'line\n' });
    repo.commit();
    await run();
    const again = await run();
    expect(again.paths).toEqual(['b', 'b/Dockerfile']); // b is read from disk every time; a comes from the cache
  });
});
