import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTokens } from '../../../scripts/lib/deploy/deploy-tokens.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pharos-tokens16-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text, { mode });
  return path;
}

describe('fileTokens() reads a provider token the way ssh reads a key', () => {
  it('returns the one line without its newline', async () => {
    expect(await fileTokens(await file('ok', 'glpat-abc_123\n'))).toBe('glpat-abc_123');
  });
  it('refuses a file others can read, naming the mode and the fix, never the token', async () => {
    const path = await file('open', 'secret-value\n', 0o640);
    await expect(fileTokens(path)).rejects.toThrow(
      `Cannot use provider token "${path}": mode 640 lets others read it (chmod 600 "${path}")`,
    );
    await expect(fileTokens(path)).rejects.not.toThrow(/secret-value/);
  });
  it('refuses a symbolic link, even to a good file (a link can be re-pointed by whoever owns its folder)', async () => {
    const target = await file('real', 'tok\n');
    const link = join(dir, 'link');
    await symlink(target, link);
    await expect(fileTokens(link)).rejects.toThrow(`Cannot read provider token "${link}": it is a symbolic link`);
  });
  it('refuses two lines, spaces, an empty file, a folder and a missing file', async () => {
    await expect(fileTokens(await file('two', 'a\nb\n'))).rejects.toThrow(/one line of printable characters/);
    await expect(fileTokens(await file('space', 'a b\n'))).rejects.toThrow(/one line of printable characters/);
    await expect(fileTokens(await file('empty', ''))).rejects.toThrow(/one line of printable characters/);
    await mkdir(join(dir, 'folder'), { mode: 0o700 });
    await expect(fileTokens(join(dir, 'folder'))).rejects.toThrow(/not a regular file/);
    await expect(fileTokens(join(dir, 'missing'))).rejects.toThrow(/it does not exist/);
  });
  it('refuses a FIFO at once, naming it, instead of waiting for a writer; the token source is DeployError exit 2', async () => {
    const fifo = join(dir, 'fifo.token');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const started = Date.now();
    await expect(fileTokens(fifo)).rejects.toMatchObject({
      code: 'bad-token',
      exitCode: 2,
      message: `Cannot read provider token "${fifo}": it is a FIFO, not a regular file`,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
