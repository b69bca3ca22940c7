// The fingerprint's git commands take no optional lock: the user's own git commands never meet our index.lock.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintImages, loadCatalogue } from '../../../scripts/lib/fingerprint/index.ts';
import { openWorktreeSource } from '../../../scripts/lib/fingerprint/worktree-source.ts';
import { tempRepo, type TempRepo } from '../../support/temp-repo.ts';

const catalogue = {
  platform: 'linux/amd64',
  images: {
    svc: { image: 'pharos/svc', application: 'pharos', context: '.', dockerfile: 'svc/Dockerfile', inputs: ['svc'] },
  },
};
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

function repo(): TempRepo {
  const r = tempRepo({
    'gitops/manifests/images.yaml': JSON.stringify(catalogue),
    'svc/Dockerfile': 'FROM scratch\n',
    'svc/main.txt': 'main\n',
  });
  repos.push(r);
  r.commit();
  return r;
}

async function fingerprint(dir: string): Promise<string | undefined> {
  const source = await openWorktreeSource(dir);
  return (await fingerprintImages(source, await loadCatalogue(source)))[0]?.fingerprint;
}

describe("the working tree's git status", () => {
  it('answers while another git command holds index.lock, and leaves that lock alone', async () => {
    const r = repo();
    const before = await fingerprint(r.dir);
    const lock = join(r.dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    expect(await fingerprint(r.dir)).toBe(before);
    expect(existsSync(lock)).toBe(true);
  });

  it('does not rewrite the index to refresh stat data (the user may be running git at the same moment)', async () => {
    const r = repo();
    const index = join(r.dir, '.git', 'index');
    utimesSync(join(r.dir, 'svc/main.txt'), new Date(), new Date(Date.now() + 5_000)); // same bytes, new mtime
    const written = statSync(index).mtimeMs;
    const before = await fingerprint(r.dir);
    expect(statSync(index).mtimeMs).toBe(written);
    expect(existsSync(`${index}.lock`)).toBe(false);
    expect(await fingerprint(r.dir)).toBe(before);
  });
});
