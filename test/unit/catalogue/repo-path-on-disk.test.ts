import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoPathOnDiskProblem } from '../../../scripts/lib/catalogue/repo-path-on-disk.ts';

let root = '';
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'repo-path-disk-'));
  root = join(dir, 'repo');
  await mkdir(join(root, 'services/api'), { recursive: true });
  await writeFile(join(root, 'services/api/Dockerfile'), 'FROM scratch\n');
  await writeFile(join(dir, 'outside'), 'FROM scratch\n');
  await symlink(join(dir, 'outside'), join(root, 'services/api/Linked'));
  await symlink(join(root, 'services'), join(root, 'alias'));
});

describe('repoPathOnDiskProblem(): a build reads a catalogue path as the fingerprint does', () => {
  it('accepts a regular file and a folder reached through no symlink', async () => {
    expect(await repoPathOnDiskProblem(root, 'services/api/Dockerfile', 'file')).toBeUndefined();
    expect(await repoPathOnDiskProblem(root, 'services/api', 'directory')).toBeUndefined();
    expect(await repoPathOnDiskProblem(root, '.', 'directory')).toBeUndefined();
  });

  it.each([
    ['services/api/Linked', 'file', /"services\/api\/Linked" is a symbolic link/],
    ['alias/api/Dockerfile', 'file', /"alias" is a symbolic link/],
    ['services/../services/api/Dockerfile', 'file', /no "\.\." segment/],
    ['services/api', 'file', /is a directory, not a regular file/],
    ['services/api/Dockerfile', 'directory', /is not a folder/],
    ['services/web/Dockerfile', 'file', /"services\/web" does not exist/],
  ] as const)('refuses %s as a %s', async (path, kind, message) => {
    expect(await repoPathOnDiskProblem(root, path, kind)).toMatch(message);
  });

  it('lets an optional last segment be missing, but not be a link', async () => {
    expect(await repoPathOnDiskProblem(root, 'services/api/.dockerignore', 'file', true)).toBeUndefined();
    expect(await repoPathOnDiskProblem(root, 'services/api/Linked', 'file', true)).toMatch(/symbolic link/);
  });
});
