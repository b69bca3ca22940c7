import { describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { gitEnv, gitPort } from '../../../scripts/lib/ports/git.ts';
import { readCheckoutCommit } from '../../../scripts/lib/delivery/resolve-checkout.ts';

const env = gitEnv({
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
});
const git = (dir: string, ...args: string[]) =>
  execOk(exec, 'git', ['-C', dir, ...args], { env }).then((r) => r.stdout.toString('utf8').trim());

describe('readCheckoutCommit()', () => {
  it('resolves the revision and reads the file of that commit, relative to a checkout inside the repository', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'checkout-'));
    await git(repo, 'init', '--quiet');
    await mkdir(join(repo, 'platform/gitops'), { recursive: true });
    await writeFile(join(repo, 'platform/gitops/c.yaml'), 'one\n');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '--quiet', '-m', 'one');
    const first = await git(repo, 'rev-parse', 'HEAD');
    await writeFile(join(repo, 'platform/gitops/c.yaml'), 'two\n');
    await git(repo, 'commit', '--quiet', '-am', 'two');
    const sub = gitPort(join(repo, 'platform'));
    const old = await readCheckoutCommit(sub, 'HEAD~1', 'gitops/c.yaml');
    expect(old.commit).toBe(first);
    expect(old.file?.toString()).toBe('one\n');
    expect((await readCheckoutCommit(sub, 'HEAD', 'gitops/c.yaml')).file?.toString()).toBe('two\n');
    expect((await readCheckoutCommit(sub, 'HEAD', 'gitops/none.yaml')).file).toBeUndefined();
    await expect(readCheckoutCommit(sub, 'no-such-branch', 'x')).rejects.toMatchObject({
      code: 'unknown-revision',
      exitCode: 2,
    });
  });

  it('says so when the folder is not in a git repository', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'not-git-'));
    await expect(readCheckoutCommit(gitPort(dir), 'HEAD', 'x')).rejects.toMatchObject({ code: 'not-a-git-repo' });
  });
});
