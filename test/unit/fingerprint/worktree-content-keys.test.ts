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
    // git's status reports a staged deletion (index against HEAD), so git's snapshot leaves no key; the index
    // reader compares the working tree with the index only, which is clean, so its key names the new content.
    expect(worktreeContentKeys(await gitSnapshot(repo.dir, 'git'))(['a'])).toBeUndefined();
    const staged = worktreeContentKeys(await gitSnapshot(repo.dir, 'index'))(['a']);
    expect(staged).toMatch(/^git-index:/);
    expect(staged).not.toBe(clean(['a']));
    writeFileSync(join(repo.dir, 'a/x'), '1'); // back on disk, untracked now
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

  it("leaves the toolkit's own .local/ out even when someone committed it", async () => {
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

describe('one image at a time from a large index', () => {
  it('lists non-ASCII paths under one input exactly as the commit does, whatever the neighbours hold', async () => {
    const { fingerprintImages, loadCatalogue, openSource } = await import('../../../scripts/lib/fingerprint/index.ts');
    const images = {
      een: { image: 'pharos/een', application: 'pharos', context: '.', dockerfile: 'één/Dockerfile', inputs: ['één'] },
      zz: { image: 'pharos/zz', application: 'pharos', context: '.', dockerfile: 'zz/Dockerfile', inputs: ['zz'] },
    };
    repo.write({
      'gitops/manifests/images.yaml': JSON.stringify({ platform: 'linux/amd64', images }),
      'één/Dockerfile': 'FROM scratch\n',
      'één/ünïcode/日本.txt': 'x',
      'één-neighbour/a': 'not an input',
      'zz/Dockerfile': 'FROM scratch\n',
      'zz/ß.txt': 'y',
    });
    repo.commit();
    writeFileSync(join(repo.dir, 'zz/ß.txt'), 'changed: only zz is listed again');
    const prints = async (rev?: string) => {
      const source = await openSource(repo.dir, rev);
      return Object.fromEntries(
        (await fingerprintImages(source, await loadCatalogue(source), { encodings: true })).map((r) => [
          r.name,
          r.encoding,
        ]),
      );
    };
    const [worktree, commit] = [await prints(), await prints('HEAD')];
    expect(worktree.een).toBe(commit.een);
    expect(worktree.een).toContain('\téén/ünïcode/日本.txt\n');
    expect(worktree.een).not.toContain('neighbour');
    expect(worktree.zz).not.toBe(commit.zz);
  });
});

describe('indexByteRanges() finds the records under paths by binary search on the raw ls-files buffer', () => {
  it('agrees with filtering every record, for any sorted index and any prefixes', async () => {
    const fc = (await import('fast-check')).default;
    const { indexByteRanges } = await import('../../../scripts/lib/fingerprint/git-text-content-keys.ts');
    const { entryRangesUnder, pathOf } = await import('../../../scripts/lib/fingerprint/index-entries.ts');
    const { compareBytewise } = await import('../../../scripts/lib/catalogue/compare-bytewise.ts');
    const { isAtOrUnder } = await import('../../../scripts/lib/catalogue/repo-path.ts');
    const segment = fc.constantFrom('a', 'ab', 'a-b', 'a0', 'b', 'é', 'z', '.local', 'x.txt');
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(
        fc.uniqueArray(path, { maxLength: 40 }),
        fc.array(fc.oneof(path, fc.constant('.')), { minLength: 1, maxLength: 3 }),
        (paths, prefixes) => {
          // A file and a folder of the same name cannot both be in an index: keep the first of each clash.
          const kept = paths.filter((p, i) => !paths.some((q, j) => j < i && (isAtOrUnder(p, q) || isAtOrUnder(q, p))));
          const sorted = [...kept].sort(compareBytewise);
          const expected = sorted.filter((p) => prefixes.some((prefix) => isAtOrUnder(p, prefix)));
          // git's text, searched in place
          const records = sorted.map((p, i) => Buffer.from(`100644 ${String(i).padStart(40, '0')} 0\t${p}\0`));
          const index = Buffer.concat(records);
          const picked = indexByteRanges(index, prefixes)
            .map(([from, to]) => index.toString('utf8', from, to))
            .join('');
          expect(picked).toBe(expected.map((p) => records[sorted.indexOf(p)]?.toString('utf8')).join(''));
          // the reader's typed arrays, searched in place: one path buffer, each path followed by a NUL
          const bytes = sorted.map((p) => Buffer.from(`${p}\0`));
          const pathStart = new Uint32Array(sorted.length + 1);
          bytes.forEach((b, i) => {
            pathStart[i + 1] = (pathStart[i] as number) + b.length;
          });
          const entries = {
            count: sorted.length,
            paths: Buffer.concat(bytes),
            pathStart,
            mode: new Uint32Array(sorted.length),
            stage: new Uint8Array(sorted.length),
            oids: Buffer.alloc(sorted.length * 20),
            oidBytes: 20,
          };
          const listed = entryRangesUnder(entries, prefixes).flatMap(([from, to]) =>
            Array.from({ length: to - from }, (_, k) => pathOf(entries, from + k, false)),
          );
          expect(listed).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
