import { FingerprintError } from '../fingerprint/fingerprint-error.ts';
import type { Git } from '../ports/git.ts';

/** The commit a revision names and the checkout's path inside its repository, with one `git rev-parse`. */
export async function resolveCheckout(git: Git, rev: string): Promise<{ commit: string; prefix: string }> {
  const result = await git.run(['rev-parse', '--show-prefix', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  const [prefix = '', commit = ''] = result.stdout.toString('utf8').split('\n');
  if (result.code !== 0 && /not a git repository/i.test(result.stderr)) {
    throw new FingerprintError('not-a-git-repo', `Cannot read commits of "${git.dir}": not a git repository`, { details: { repo: git.dir } });
  }
  if (result.code !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) {
    throw new FingerprintError('unknown-revision', `Cannot resolve revision "${rev}" in "${git.dir}": no such commit`, { details: { repo: git.dir, rev } });
  }
  return { commit, prefix };
}
