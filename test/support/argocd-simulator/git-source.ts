// Reads an Application's source from a real Git repository at one commit (what Argo CD's repo-server does).
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { gitEnv, gitPort } from '../../../scripts/lib/ports/git.ts';
import { resolveCommit } from '../../../scripts/lib/fingerprint/index.ts';

export class SourceError extends Error {}

export async function resolveRevision(repo: string, revision: string | undefined): Promise<string> {
  const rev = revision === undefined || revision === '' ? 'HEAD' : revision;
  try {
    return await resolveCommit(gitPort(repo), rev);
  } catch (error) {
    throw new SourceError(`unable to resolve '${rev}' to a commit SHA in ${repo}: ${(error as Error).message}`);
  }
}

/** The commit's files under `<workDir>/<commit>` (extracted once with `git archive`); returns that folder. */
export async function checkout(repo: string, commit: string, workDir: string): Promise<string> {
  const dest = join(workDir, commit);
  if (
    await stat(dest).then(
      () => true,
      () => false,
    )
  )
    return dest;
  await mkdir(workDir, { recursive: true });
  const tmp = await mkdtemp(join(workDir, `.${commit.slice(0, 12)}-`));
  try {
    const archive = await execOk(exec, 'git', ['-C', repo, 'archive', '--format=tar', commit], { env: gitEnv() });
    await execOk(exec, 'tar', ['-x', '-f', '-', '-C', tmp], { input: archive.stdout });
    await rename(tmp, dest);
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw new SourceError(`cannot check out ${commit} of ${repo}: ${(error as Error).message}`);
  }
  return dest;
}
