import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execOk } from '../ports/exec.ts';
import { exec as realExec } from '../ports/exec.ts';
import type { Exec } from '../ports/exec.ts';
import { gitPort } from '../ports/git.ts';
import type { Git } from '../ports/git.ts';
import { openObjectReader } from '../ports/git-object-reader.ts';
import type { GitObjectReader } from '../ports/git-object-reader.ts';
import { MAX_ARTIFACT_BYTES } from '../signing/read-bounded.ts';
import { HostError } from './host-error.ts';
import { COMMIT_SHA } from '../channel/channel-schema.ts';
import { gitFetchBounded } from './git-fetch-bounded.ts';
import { hostPaths } from './host-paths.ts';
import type { FetchBounds } from './git-fetch-bounded.ts';
import type { HostConfig } from './host-config.ts';

export interface DeployStateCheckout {
  readonly git: Git;
  /** The fetched deploy-state commit. */
  readonly commit: string;
}

/** A blob read from a commit: its bytes, or why it was not read. */
export type BlobRead =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'missing' }
  | { readonly kind: 'too-large'; readonly size: number };

/** HEPHAESTUS_FETCH_TIMEOUT and HEPHAESTUS_FETCH_MAX_MIB as fetch bounds. */
export function fetchBoundsFrom(
  config: Pick<HostConfig, 'HEPHAESTUS_FETCH_TIMEOUT' | 'HEPHAESTUS_FETCH_MAX_MIB'>,
): FetchBounds {
  return { timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000, maxBytes: config.HEPHAESTUS_FETCH_MAX_MIB * 1024 * 1024 };
}

/** The fetched repository and the ref deploy-state arrived in, not yet resolved to a commit. */
export interface FetchedDeployState {
  readonly git: Git;
  /** `refs/remotes/origin/<branch>`. */
  readonly ref: string;
}

/** Fetches deploy-state, main and the tags into the host's repository (`checkout/`, or a bare `cache/deploy-state.git`; old objects stay, so a rewritten history is still detectable). */
export async function fetchDeployStateRef(
  root: string,
  repository: string,
  branch: string,
  bounds: FetchBounds,
  run: Exec = realExec,
): Promise<FetchedDeployState> {
  const dir = hostPaths.cache(root);
  const git = gitPort(dir, run);
  const exists = await access(join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true });
    await execOk(run, 'git', ['init', '--quiet', '--bare', dir]);
  }
  const fetched = await gitFetchBounded(
    dir,
    [
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      repository,
      `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
      '+refs/heads/main:refs/remotes/origin/main',
      '+refs/tags/*:refs/tags/*',
    ],
    bounds,
  );
  if (fetched.code !== 0) {
    throw new HostError(
      'fetch-failed',
      `Cannot fetch "${branch}" from "${repository}": ${fetched.stderr.trim().split('\n').slice(-2).join(' / ')}`,
      { details: { repository, branch } },
    );
  }
  return { git, ref: `refs/remotes/origin/${branch}` };
}

function unreadableHead(ref: string, printed: string): HostError {
  return new HostError(
    'fetch-failed',
    `Cannot read the "${ref.replace(/^refs\/remotes\/origin\//, '')}" commit: git printed ${JSON.stringify(printed.slice(0, 80))}`,
  );
}

/** `fetchDeployStateRef`, then the commit it fetched. */
export async function fetchDeployState(
  root: string,
  repository: string,
  branch: string,
  bounds: FetchBounds,
  run: Exec = realExec,
): Promise<DeployStateCheckout> {
  const { git, ref } = await fetchDeployStateRef(root, repository, branch, bounds, run);
  const head = await execOk(run, 'git', ['-C', git.dir, 'rev-parse', '--verify', `${ref}^{commit}`]);
  const commit = head.stdout.toString('utf8').trim();
  if (!COMMIT_SHA.test(commit)) throw unreadableHead(ref, commit);
  return { git, commit };
}

/** The commit `ref` names, through an open reader (no process of its own). */
export async function resolveCommit(reader: GitObjectReader, ref: string): Promise<string> {
  const info = await reader.info(`${ref}^{commit}`);
  if (info.kind !== 'found' || info.type !== 'commit' || !COMMIT_SHA.test(info.oid))
    throw unreadableHead(ref, info.kind === 'found' ? `${info.oid} ${info.type}` : `${ref} missing`);
  return info.oid;
}

/** Reads files at a commit with one `git cat-file` process; a blob over the limit is reported by its size and never read. */
export async function readBlobs(
  git: Git,
  commit: string,
  paths: readonly string[],
  limit: number = MAX_ARTIFACT_BYTES,
): Promise<BlobRead[]> {
  const reader = openObjectReader(git);
  try {
    return await readBlobsWith(reader, commit, paths, limit);
  } finally {
    await reader.close();
  }
}

/** `readBlobs` through a reader the caller keeps open (and closes). */
export async function readBlobsWith(
  reader: GitObjectReader,
  commit: string,
  paths: readonly string[],
  limit: number = MAX_ARTIFACT_BYTES,
): Promise<BlobRead[]> {
  // As `ls-tree` did: a tree-ish the repository lacks is an error, not a missing file.
  const tree = await reader.info(`${commit}^{tree}`).catch((cause: Error) => cause);
  if (tree instanceof Error || tree.kind !== 'found')
    throw new HostError(
      'fetch-failed',
      `Cannot list ${paths.join(', ')} at ${commit}: ${tree instanceof Error ? tree.message : 'no such commit in the repository'}`,
    );
  const out: BlobRead[] = [];
  for (const path of paths) {
    let read: BlobRead;
    try {
      const info = await reader.info(`${commit}:${path}`);
      if (info.kind === 'missing' || info.type !== 'blob') read = { kind: 'missing' };
      else if (info.size > limit) read = { kind: 'too-large', size: info.size };
      else read = { kind: 'ok', bytes: await reader.contents(info.oid) };
    } catch (cause) {
      throw new HostError('fetch-failed', `Cannot read ${path} at ${commit}: ${(cause as Error).message}`, { cause });
    }
    out.push(read);
  }
  return out;
}

/** `ancestor` is `descendant` or one of its ancestors; a commit missing from the cache counts as not (a rewritten history). */
export async function isAncestor(git: Git, ancestor: string, descendant: string): Promise<boolean> {
  const result = await git.run(['merge-base', '--is-ancestor', ancestor, descendant]);
  if (result.code === 0) return true;
  if (result.code === 1) return false;
  return false;
}
