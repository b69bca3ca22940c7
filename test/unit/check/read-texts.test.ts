import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTexts } from '../../../scripts/lib/check/read-texts.ts';
import { openSource } from '../../../scripts/lib/fingerprint/index.ts';
import { exec, execOk } from '../../../scripts/lib/ports/index.ts';

let repo = '';
const git = (...args: string[]) =>
  execOk(exec, 'git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args]);

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'check-read-'));
  await mkdir(join(repo, 'sub', 'm'), { recursive: true });
  for (let i = 0; i < 40; i++)
    await writeFile(join(repo, 'sub', 'm', `f${i}.yaml`), `n: ${i}\n${'x'.repeat(i * 100)}\n`);
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'files');
  await writeFile(join(repo, 'sub', 'm', 'f1.yaml'), 'changed on disk\n');
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('readTexts', () => {
  it('reads many files of a commit in one round, as committed, leaving absent paths out', async () => {
    const source = await openSource(join(repo, 'sub'), 'HEAD');
    const paths = [...Array.from({ length: 40 }, (_, i) => `m/f${i}.yaml`), 'm/absent.yaml', 'm'];
    const texts = await readTexts(source, paths);
    expect(texts.size).toBe(40);
    expect(texts.get('m/f1.yaml')).toBe(`n: 1\n${'x'.repeat(100)}\n`);
    expect(texts.get('m/f39.yaml')).toBe(`n: 39\n${'x'.repeat(3900)}\n`);
  });

  it('reads the working tree from disk', async () => {
    const source = await openSource(join(repo, 'sub'), undefined);
    expect((await readTexts(source, ['m/f1.yaml', 'm/absent.yaml'])).get('m/f1.yaml')).toBe('changed on disk\n');
  });
});
