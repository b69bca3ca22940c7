import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evidenceFromBytes } from '../host/channel-evidence.ts';
import { exec as realExec, execOk } from '../ports/exec.ts';
import type { Exec } from '../ports/exec.ts';
import { gitEnv, gitPort } from '../ports/git.ts';
import type { Git } from '../ports/git.ts';
import { readBlobs } from '../host/deploy-state-cache.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import type { CurrentChannel, History } from './plan-promotion.ts';
import { PromotionError } from './promotion-error.ts';

export interface DeployStateRepo {
  readonly git: Git;
  readonly dir: string;
  readonly repository: string;
  readonly branch: string;
  /** The branch tip when fetched; undefined when the branch does not exist yet. */
  readonly head: string | undefined;
  readonly run: Exec;
  close(): Promise<void>;
}

/** Fetches deploy-state, main and tags into a private bare repository in a temp folder (no checkout needed). */
export async function openDeployStateRepo(
  repository: string,
  branch: string,
  run: Exec = realExec,
): Promise<DeployStateRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'hephaestus-promote-'));
  const git = gitPort(dir, run);
  const close = () => rm(dir, { recursive: true, force: true });
  try {
    await execOk(run, 'git', ['init', '--quiet', '--bare', dir]);
    const refs = await execOk(run, 'git', ['ls-remote', '--heads', repository, `refs/heads/${branch}`], {
      env: gitEnv(),
    });
    const exists = refs.stdout.toString('utf8').trim() !== '';
    const specs = ['+refs/heads/main:refs/remotes/origin/main', '+refs/tags/*:refs/tags/*'];
    if (exists) specs.unshift(`+refs/heads/${branch}:refs/remotes/origin/${branch}`);
    const fetched = await git.run(['fetch', '--quiet', '--no-tags', repository, ...specs]);
    if (fetched.code !== 0)
      throw new PromotionError('push-failed', `Cannot fetch "${repository}": ${fetched.stderr.trim()}`);
    const head = exists
      ? (await execOk(run, 'git', ['-C', dir, 'rev-parse', `refs/remotes/origin/${branch}`])).stdout
          .toString('utf8')
          .trim()
      : undefined;
    return { git, dir, repository, branch, head, run, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The environment's channel at the fetched tip, verified with the promotion trust over its exact bytes before it is
 * parsed (as hosts do): promotion decides from it and signs its successor, so a channel nobody trusted signed is never
 * read, and one signed for another environment is refused too.
 */
export async function readCurrentChannel(
  repo: DeployStateRepo,
  environment: string,
  policy: TrustPolicy,
): Promise<CurrentChannel> {
  if (repo.head === undefined) return { kind: 'none' };
  const file = `channels/${environment}.json`;
  const [channel, bundle] = await readBlobs(repo.git, repo.head, [file, `${file}.sigstore.json`]);
  if (channel?.kind === 'missing' && bundle?.kind === 'missing') return { kind: 'none' };
  if (channel?.kind !== 'ok') return { kind: 'unreadable', message: `${file} is ${channel?.kind ?? 'missing'}` };
  if (bundle?.kind !== 'ok')
    return { kind: 'unverified', file, message: `${file}.sigstore.json is ${bundle?.kind ?? 'missing'}` };
  const evidence = evidenceFromBytes(channel.bytes, bundle.bytes, file, policy);
  if (!evidence.ok)
    return evidence.reason === 'malformed'
      ? { kind: 'unreadable', message: evidence.message }
      : { kind: 'unverified', file, message: evidence.message };
  const signedFor = evidence.channel.environment;
  if (signedFor !== undefined && signedFor !== environment)
    return {
      kind: 'unverified',
      file,
      message: `${file} is signed for environment "${signedFor}", not "${environment}"`,
    };
  return { kind: 'ok', channel: evidence.channel };
}

/** History port over the fetched repository; a failed comparison stops promotion. */
export function gitHistory(repo: DeployStateRepo): History {
  return {
    isAncestor: async (ancestor, descendant) => {
      const result = await repo.git.run(['merge-base', '--is-ancestor', ancestor, descendant]);
      if (result.code === 0) return true;
      if (result.code === 1) return false;
      throw new PromotionError('history', `Cannot compare ${ancestor} with ${descendant}: ${result.stderr.trim()}`, {
        details: { ancestor, descendant },
      });
    },
    releaseCommit: async (tag) => {
      const result = await repo.git.run(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`]);
      if (result.code !== 0) {
        throw new PromotionError(
          'unknown-target',
          `Cannot promote ${tag}: there is no release tag "${tag}" in "${repo.repository}" (push the tag first; nothing was signed)`,
          { exitCode: 2, details: { tag } },
        );
      }
      return result.stdout.toString('utf8').trim();
    },
    onMain: async (commit) => {
      const exists = await repo.git.run(['cat-file', '-e', `${commit}^{commit}`]);
      if (exists.code !== 0) return false;
      const result = await repo.git.run(['merge-base', '--is-ancestor', commit, 'refs/remotes/origin/main']);
      if (result.code === 0 || result.code === 1) return result.code === 0;
      throw new PromotionError('history', `Cannot tell whether ${commit} is on main: ${result.stderr.trim()}`, {
        details: { commit },
      });
    },
  };
}

const IDENTITY = {
  GIT_AUTHOR_NAME: 'hephaestus promote',
  GIT_AUTHOR_EMAIL: 'promote@hephaestus.invalid',
  GIT_COMMITTER_NAME: 'hephaestus promote',
  GIT_COMMITTER_EMAIL: 'promote@hephaestus.invalid',
};

/** Commits files on top of the fetched tip with plumbing (a private index, no working tree). */
export async function commitFiles(
  repo: DeployStateRepo,
  files: readonly { path: string; bytes: string | Buffer }[],
  message: string,
): Promise<string> {
  const env = gitEnv({ GIT_INDEX_FILE: join(repo.dir, 'promote.index'), ...pickIdentity() });
  const git = (args: readonly string[], input?: string | Buffer) =>
    execOk(repo.run, 'git', ['-C', repo.dir, ...args], { env, input });
  await git(repo.head === undefined ? ['read-tree', '--empty'] : ['read-tree', repo.head]);
  for (const file of files) {
    const oid = (await git(['hash-object', '-w', '--stdin'], file.bytes)).stdout.toString('utf8').trim();
    await git(['update-index', '--add', '--cacheinfo', `100644,${oid},${file.path}`]);
  }
  const tree = (await git(['write-tree'])).stdout.toString('utf8').trim();
  const parent = repo.head === undefined ? [] : ['-p', repo.head];
  return (await git(['commit-tree', tree, ...parent, '-F', '-'], message)).stdout.toString('utf8').trim();
}

function pickIdentity(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(IDENTITY)) out[key] = process.env[key] ?? value;
  return out;
}

/** Pushes without force: if deploy-state moved since the fetch the push is rejected, which is the lock's compare-and-swap. */
export async function pushCommit(repo: DeployStateRepo, commit: string): Promise<'pushed' | 'rejected'> {
  const result = await repo.git.run([
    'push',
    '--quiet',
    '--porcelain',
    repo.repository,
    `${commit}:refs/heads/${repo.branch}`,
  ]);
  if (result.code === 0) return 'pushed';
  const text = `${result.stdout.toString('utf8')}\n${result.stderr}`;
  // A non-fast-forward, or the ref moving between the remote's check and its update (a concurrent push).
  if (/\[rejected\]|non-fast-forward|fetch first|cannot lock ref|failed to update ref|incorrect old value/.test(text))
    return 'rejected';
  throw new PromotionError(
    'push-failed',
    `Cannot push to "${repo.repository}": ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
  );
}
