// Runs on the runner: takes a bundle from stdin, checks it carries exactly the announced commit, and checks that
// commit out, detached, in the runner's own checkout (.local/, the receipt and journal, is kept).
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { exec } from '../ports/exec.ts';
import { gitEnv } from '../ports/git.ts';
import { RunnerError } from './runner-error.ts';
import { bundleRef, runnerPaths } from './runner-paths.ts';

const COMMIT = /^[0-9a-f]{40}$/;

async function git(args: readonly string[], cwd?: string): Promise<string> {
  const result = await exec('git', args, { cwd, env: gitEnv(), timeoutMs: 600_000 });
  const what =
    args[0] === 'bundle' || args[0] === 'fetch' ? 'the bundle is incomplete or damaged' : 'the runner checkout';
  if (result.code !== 0)
    throw new RunnerError(
      'bad-bundle',
      `Cannot receive the bundle (${what}): git ${args.slice(0, 2).join(' ')} failed: ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
    );
  return result.stdout.toString('utf8');
}

/** The commits the runner's checkout already has under bundle refs: the sender leaves them out of the next bundle. */
export async function haveCommits(root: string): Promise<string[]> {
  const { checkout } = runnerPaths(root);
  const result = await exec('git', ['-C', checkout, 'for-each-ref', '--format=%(objectname)', 'refs/pharos-runner/'], {
    env: gitEnv(),
  });
  return result.code === 0
    ? result.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => COMMIT.test(l))
    : [];
}

export async function receiveBundle(
  root: string,
  commit: string,
  input: Readable,
): Promise<{ commit: string; checkout: string }> {
  if (!COMMIT.test(commit))
    throw new RunnerError('bad-bundle', `Cannot receive commit "${commit}": not a 40-hex commit id`);
  const paths = runnerPaths(root);
  await mkdir(paths.incoming, { recursive: true, mode: 0o700 });
  const partial = `${paths.incoming}/${commit}.${process.pid}.partial`;
  const file = `${paths.incoming}/${commit}.bundle`;
  try {
    await pipeline(input, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
    const exists = await exec('git', ['-C', paths.checkout, 'rev-parse', '--git-dir'], { env: gitEnv() });
    if (exists.code !== 0) await git(['init', '--quiet', paths.checkout]);
    // verify: complete and its prerequisites present here; list-heads: it names the announced commit, nothing else.
    await git(['bundle', 'verify', '--quiet', file], paths.checkout);
    const heads = (await git(['bundle', 'list-heads', file], paths.checkout))
      .trim()
      .split('\n')
      .filter((l) => l !== '');
    const expected = `${commit} ${bundleRef(commit)}`;
    if (heads.length !== 1 || heads[0] !== expected) {
      throw new RunnerError(
        'bad-bundle',
        `Cannot use the bundle for ${commit.slice(0, 12)}: it carries [${heads.join(', ')}], not "${expected}"`,
        { details: { heads } },
      );
    }
    await git(['fetch', '--quiet', file, `+${bundleRef(commit)}:${bundleRef(commit)}`], paths.checkout);
    const fetched = (await git(['rev-parse', '--verify', `${bundleRef(commit)}^{commit}`], paths.checkout)).trim();
    if (fetched !== commit)
      throw new RunnerError('bad-bundle', `Cannot use the bundle: ${bundleRef(commit)} is ${fetched}, not ${commit}`);
    await git(['checkout', '--quiet', '--force', '--detach', commit], paths.checkout);
    await git(['clean', '--quiet', '-ffdx', '--exclude=/.local/'], paths.checkout);
    return { commit, checkout: paths.checkout };
  } finally {
    await rm(partial, { force: true });
    await rm(file, { force: true });
  }
}
