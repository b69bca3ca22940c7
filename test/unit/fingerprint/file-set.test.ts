import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  imageFileSet,
  excludeMatcher,
  fingerprintImages,
  loadCatalogue,
  openSource,
} from '../../../scripts/lib/fingerprint/index.ts';
import type { ImageEntry } from '../../../scripts/lib/catalogue/index.ts';
import { DiskFileTableBuilder } from '../../../scripts/lib/fingerprint/disk-file-table.ts';
import { digestHex } from '../../../scripts/lib/fingerprint/file-digests.ts';
import { hashDiskTable } from '../../../scripts/lib/fingerprint/hash-disk-files.ts';
import type { HashOptions } from '../../../scripts/lib/fingerprint/hash-disk-files.ts';
import { naiveFingerprint } from '../../support/naive-fingerprint.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

/** The SHA-256 and byte count of each regular file, hashed through the cold path's table. */
async function hashFiles(
  root: string,
  files: readonly { path: string; size: number }[],
  options?: HashOptions,
): Promise<{ sha256: string; bytes: number | undefined }[]> {
  const table = new DiskFileTableBuilder();
  for (const f of files) table.add(f.path, f.size, 0);
  const digests = await hashDiskTable(root, table.build(undefined), undefined, options);
  return files.map((_, i) => ({ sha256: digestHex(digests, i), bytes: digests.bytes[i] }));
}

const entry = (inputs: string[], dockerfile: string): ImageEntry => ({
  name: 'x',
  image: 'pharos/x',
  application: 'pharos',
  context: '.',
  dockerfile,
  target: undefined,
  args: [],
  platform: 'linux/amd64',
  inputs,
  exclude: [],
  takeover: undefined,
});
const files = (...paths: string[]) => paths.map((path) => ({ path, mode: '100644' as const }));

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

describe('imageFileSet()', () => {
  const listing = files('a', 'a-b/x', 'a.b/y', 'a/b', 'a/c/d', 'ab/e', 'docker/Dockerfile', 'z');

  it('takes a folder and not its look-alike siblings', () => {
    expect(imageFileSet(entry(['a'], 'docker/Dockerfile'), listing, () => false).map((e) => e.path)).toEqual([
      'a',
      'a/b',
      'a/c/d',
      'docker/Dockerfile',
    ]);
  });

  it('lists a file once when inputs overlap, in bytewise order', () => {
    expect(
      imageFileSet(entry(['a/c', 'a', 'a/c/d'], 'docker/Dockerfile'), listing, () => false).map((e) => e.path),
    ).toEqual(['a', 'a/b', 'a/c/d', 'docker/Dockerfile']);
  });

  it('adds a Dockerfile outside every input in its sorted place and never excludes it', () => {
    const excluded = excludeMatcher(['docker/**', 'a/b']);
    expect(imageFileSet(entry(['a-b', 'z'], 'docker/Dockerfile'), listing, excluded).map((e) => e.path)).toEqual([
      'a-b/x',
      'docker/Dockerfile',
      'z',
    ]);
    expect(imageFileSet(entry(['a'], 'docker/Dockerfile'), listing, excluded).map((e) => e.path)).toEqual([
      'a',
      'a/c/d',
      'docker/Dockerfile',
    ]);
  });

  it('takes everything for the input "."', () => {
    expect(imageFileSet(entry(['.'], 'docker/Dockerfile'), listing, () => false)).toHaveLength(listing.length);
  });
});

describe('hashing on every core', () => {
  it('gives the same hashes in worker threads as in one thread, for large and small files', async () => {
    const catalogue = {
      platform: 'linux/amd64',
      images: {
        big: {
          image: 'pharos/big',
          application: 'pharos',
          context: '.',
          dockerfile: 'svc/Dockerfile',
          inputs: ['svc'],
        },
      },
    };
    const spec: Record<string, string | Buffer | { content: Buffer }> = {
      'gitops/manifests/images.yaml': JSON.stringify(catalogue),
      'svc/Dockerfile': 'FROM scratch\n',
    };
    for (let i = 0; i < 3; i++) spec[`svc/large-${i}.bin`] = { content: randomBytes(14 << 20) };
    for (let i = 0; i < 50; i++) spec[`svc/small/${i}.txt`] = `file ${i}`;
    const dir = tempRepo(spec as never, { git: false });
    repos.push(dir);
    const paths = Object.keys(spec).filter((p) => p.startsWith('svc/'));
    const parallel = await hashFiles(
      dir.dir,
      paths.map((path) => ({ path, size: path.includes('large') ? 14 << 20 : 10 })),
      { workers: 1 },
    );
    const serial = await hashFiles(
      dir.dir,
      paths.slice(0, 1).map((path) => ({ path, size: 1 })),
    );
    expect(parallel[0]).toEqual(serial[0]);
    const source = await openSource(dir.dir, undefined);
    const [result] = await fingerprintImages(source, await loadCatalogue(source));
    expect(result?.fingerprint).toBe(naiveFingerprint(dir.dir, catalogue, 'big'));
  });

  it('names the file that vanished while a tree was hashed on every core, and stops there', async () => {
    const spec: Record<string, { content: Buffer }> = {};
    for (let i = 0; i < 40; i++) spec[`svc/part-${String(i).padStart(2, '0')}.bin`] = { content: randomBytes(1 << 20) };
    const dir = tempRepo(spec as never, { git: false });
    repos.push(dir);
    const files = Object.keys(spec).map((path) => ({ path, size: 1 << 20 }));
    files.splice(20, 0, { path: 'svc/gone.bin', size: 1 << 20 });
    await expect(hashFiles(dir.dir, files, { workers: 1 })).rejects.toMatchObject({
      code: 'read-failed',
      details: { path: 'svc/gone.bin' },
    });
  });
});
