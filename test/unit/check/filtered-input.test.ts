import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { execOk, exec } from '../../../scripts/lib/ports/index.ts';
import { checkPlatform } from '../../../scripts/lib/check/index.ts';
import { loadCatalogue, openSource } from '../../../scripts/lib/fingerprint/index.ts';
import { brief, cleanPlatform } from './fixture.ts';

let repo = '';
const git = (...args: string[]) =>
  execOk(exec, 'git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args]);

async function checkAt(rev: string | undefined) {
  const source = await openSource(repo, rev);
  return brief(await checkPlatform(source, await loadCatalogue(source)));
}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'check-attr-'));
  const files = { ...cleanPlatform(), '.gitattributes': '# line endings\nlib/*.sh filter=crypt\n*.html -text\n' };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'platform');
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('check: filtered-input', () => {
  it('warns once per image at the .gitattributes line that filters its inputs (working tree, via git check-attr)', async () => {
    expect(await checkAt(undefined)).toEqual(['filtered-input api .gitattributes:2']);
  });

  it('finds the same from a commit, reading .gitattributes from the tree', async () => {
    expect(await checkAt('HEAD')).toEqual(['filtered-input api .gitattributes:2']);
  });

  it('sees settings from .git/info/attributes in a working tree, pointing at the file itself', async () => {
    await mkdir(join(repo, '.git', 'info'), { recursive: true });
    await writeFile(join(repo, '.git', 'info', 'attributes'), 'index.html eol=crlf\n');
    try {
      expect(await checkAt(undefined)).toEqual([
        'filtered-input api .gitattributes:2',
        'filtered-input web web/store/index.html:1',
      ]);
    } finally {
      await rm(join(repo, '.git', 'info', 'attributes'));
    }
  });

  it('sees a .gitattributes above a platform kept in a sub-folder of its repository', async () => {
    const outer = await mkdtemp(join(tmpdir(), 'check-attr-outer-'));
    try {
      await cp(repo, join(outer, 'platform'), { recursive: true, filter: (src) => !/\/\.git(\/|$)/.test(src) });
      await rm(join(outer, 'platform', '.gitattributes')); // only the outer file can apply
      await writeFile(join(outer, '.gitattributes'), 'index.html ident\n');
      await execOk(exec, 'git', ['-C', outer, 'init', '-q']);
      const source = await openSource(join(outer, 'platform'), undefined);
      const findings = brief(await checkPlatform(source, await loadCatalogue(source)));
      expect(findings).toEqual(['filtered-input web web/store/index.html:1']);
    } finally {
      await rm(outer, { recursive: true, force: true });
    }
  });
});
