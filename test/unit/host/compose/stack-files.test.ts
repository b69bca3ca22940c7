// What a Compose stack file makes Compose read from the release, and the checks that keep it inside the signed worktree.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertStackFiles, stackFileReferences } from '../../../../scripts/lib/host/compose/stack-files.ts';
import { unsafeOwnership } from '../../../../scripts/lib/host/check-root.ts';

describe('stackFileReferences()', () => {
  it('lists include, extends, env_file, configs/secrets files and relative bind mounts; not variables or absolute paths', () => {
    const text = [
      'include: [./common.yaml, {path: [./more.yaml], env_file: ./inc.env}]',
      'services:',
      '  api:',
      '    extends: {file: ./base.yaml, service: api}',
      '    env_file: [./api.env, {path: ./opt.env, required: false}]',
      '    volumes: ["./data:/data", "../up:/up", "${EVENTS}:/events", "/srv:/srv", "named:/n", {type: bind, source: ./cfg, target: /cfg}]',
      'configs: {c: {file: ./c.conf}}',
      'secrets: {s: {file: ./s.txt}}',
    ].join('\n');
    expect(stackFileReferences(text)).toEqual([
      { path: './common.yaml', kind: 'file' },
      { path: './more.yaml', kind: 'file' },
      { path: './inc.env', kind: 'file' },
      { path: './c.conf', kind: 'file' },
      { path: './s.txt', kind: 'file' },
      { path: './base.yaml', kind: 'file' },
      { path: './api.env', kind: 'file' },
      { path: './opt.env', kind: 'file' },
      { path: './data', kind: 'mount' },
      { path: '../up', kind: 'mount' },
      { path: './cfg', kind: 'mount' },
    ]);
  });
});

describe('assertStackFiles()', () => {
  let worktree: string;
  const stack = (name: string) => join(worktree, 'docker', name);
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'release-files-'));
    worktree = join(dir, 'releases', 'v1.0.0');
    await mkdir(join(worktree, 'docker', 'data'), { recursive: true });
    await writeFile(join(dir, 'outside.env'), 'X=1\n');
    await writeFile(stack('api.env'), 'A=1\n');
    await symlink(join(dir, 'outside.env'), stack('linked.env'));
    await symlink(dir, join(worktree, 'docker', 'escape'));
  });

  it('accepts a stack whose references are regular files and folders inside the release', async () => {
    await expect(
      assertStackFiles(
        worktree,
        stack('compose.app.yaml'),
        'services: {api: {env_file: ./api.env, volumes: ["./data:/d"]}}',
      ),
    ).rejects.toThrow(/does not exist/);
    await writeFile(stack('compose.app.yaml'), 'x');
    await expect(
      assertStackFiles(
        worktree,
        stack('compose.app.yaml'),
        'services: {api: {env_file: ./api.env, volumes: ["./data:/d"]}}',
      ),
    ).resolves.toBeUndefined();
  });

  it('refuses a reference that leaves the release with ..', async () => {
    await expect(
      assertStackFiles(worktree, stack('compose.app.yaml'), 'services: {api: {env_file: ../../../outside.env}}'),
    ).rejects.toThrow(/leads outside the release worktree/);
  });

  it('refuses a reference through a symlink, even one that stays a plain file name', async () => {
    await expect(
      assertStackFiles(worktree, stack('compose.app.yaml'), 'services: {api: {env_file: ./linked.env}}'),
    ).rejects.toThrow(/"docker\/linked\.env" is a symlink/);
    await expect(
      assertStackFiles(worktree, stack('compose.app.yaml'), 'services: {api: {volumes: ["./escape/x:/x"]}}'),
    ).rejects.toThrow(/"docker\/escape" is a symlink/);
  });

  it('refuses a stack file that is itself a symlink', async () => {
    await symlink(stack('api.env'), stack('compose.core.yaml'));
    await expect(assertStackFiles(worktree, stack('compose.core.yaml'), 'services: {}')).rejects.toThrow(
      /compose\.core\.yaml" is a symlink/,
    );
  });
});

describe('unsafeOwnership()', () => {
  it.each([
    [{ uid: 0, mode: 0o40750 }, 0, undefined],
    [{ uid: 0, mode: 0o40770 }, 0, /lets its group write it/],
    [{ uid: 0, mode: 0o40757 }, 0, /lets every user write it/],
    [{ uid: 1000, mode: 0o40700 }, 0, /owned by uid 1000, not 0/],
    [{ uid: 1000, mode: 0o100644 }, 1000, undefined],
  ])('%o for uid %i', (info, uid, expected) => {
    const why = unsafeOwnership(info, uid);
    if (expected === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(expected);
  });
});
