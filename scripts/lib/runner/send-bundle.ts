// On the workstation: a bundle of exactly one commit, under a ref named after it, leaving out what the runner has.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../ports/git.ts';
import { RunnerError } from './runner-error.ts';
import { bundleRef } from './runner-paths.ts';

export interface Bundle {
  readonly file: string;
  remove(): Promise<void>;
}

export async function createBundle(git: Git, commit: string, have: readonly string[]): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), 'pharos-bundle-'));
  const file = join(dir, `${commit}.bundle`);
  const ref = bundleRef(commit);
  // Only the runner's commits this checkout knows can be prerequisites.
  const known = [];
  for (const c of have)
    if ((await git.run(['cat-file', '-e', `${c}^{commit}`])).code === 0 && c !== commit) known.push(`^${c}`);
  try {
    const made = await git.run(['update-ref', ref, commit]);
    if (made.code !== 0) throw new RunnerError('bad-bundle', `Cannot bundle ${commit}: ${made.stderr.trim()}`);
    let result = await git.run(['bundle', 'create', '--quiet', file, ref, ...known]);
    // A commit the runner already has makes an empty bundle: send it whole instead.
    if (result.code !== 0 && known.length > 0) result = await git.run(['bundle', 'create', '--quiet', file, ref]);
    if (result.code !== 0) throw new RunnerError('bad-bundle', `Cannot bundle ${commit}: ${result.stderr.trim()}`);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await git.run(['update-ref', '-d', ref]);
  }
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}
