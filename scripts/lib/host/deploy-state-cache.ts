import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execOk } from '../ports/exec.ts';
import { exec as realExec } from '../ports/exec.ts';
import type { Exec } from '../ports/exec.ts';
import { gitPort } from '../ports/git.ts';
import type { Git } from '../ports/git.ts';
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

/** Fetches deploy-state, main and the tags into the host's repository (`checkout/`, or a bare `cache/deploy-state.git`; old objects stay, so a rewritten history is still detectable). */
export async function fetchDeployState(
  root: string,
  repository: string,
  branch: string,
  bounds: FetchBounds,
  run: Exec = realExec,
): Promise<DeployStateCheckout> {
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
  const head = await execOk(run, 'git', ['-C', dir, 'rev-parse', '--verify', `refs/remotes/origin/${branch}^{commit}`]);
  const commit = head.stdout.toString('utf8').trim();
  if (!COMMIT_SHA.test(commit))
    throw new HostError(
      'fetch-failed',
      `Cannot read the "${branch}" commit: git printed ${JSON.stringify(commit.slice(0, 80))}`,
    );
  return { git, commit };
}

/** Reads files at a commit; a blob over the limit is reported by its size and never read. */
export async function readBlobs(
  git: Git,
  commit: string,
  paths: readonly string[],
  limit: number = MAX_ARTIFACT_BYTES,
): Promise<BlobRead[]> {
  const listing = await git.run(['ls-tree', '-l', '-z', commit, '--', ...paths]);
  if (listing.code !== 0)
    throw new HostError('fetch-failed', `Cannot list ${paths.join(', ')} at ${commit}: ${listing.stderr.trim()}`);
  const entries = new Map<string, { oid: string; size: number }>();
  for (const record of listing.stdout.toString('utf8').split('\0')) {
    const match = /^\d+ blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(record);
    if (match !== null) entries.set(match[3] ?? '', { oid: match[1] ?? '', size: Number(match[2]) });
  }
  const out: BlobRead[] = [];
  for (const path of paths) {
    const entry = entries.get(path);
    if (entry === undefined) out.push({ kind: 'missing' });
    else if (entry.size > limit) out.push({ kind: 'too-large', size: entry.size });
    else {
      const blob = await git.run(['cat-file', 'blob', entry.oid]);
      if (blob.code !== 0)
        throw new HostError('fetch-failed', `Cannot read ${path} at ${commit}: ${blob.stderr.trim()}`);
      out.push({ kind: 'ok', bytes: blob.stdout });
    }
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
