import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readBlobs } from '../host/deploy-state-cache.ts';
import type { Exec } from '../ports/exec.ts';
import { commitFiles, openDeployStateRepo, pushCommit } from '../promotion/deploy-state-repo.ts';
import { readFileBounded } from '../signing/read-bounded.ts';
import { CiError } from './ci-error.ts';

export interface PublishLockOptions {
  readonly repository: string;
  readonly branch: string;
  readonly release: string;
  /** Folder holding `release-<tag>.json` and its `.sigstore.json`, as `dagger call release-lock … export` writes it. */
  readonly dir: string;
  /** A chart release publishes its joint lock, the chart's signature and the evidence manifest (hosts verify all three). */
  readonly kind?: 'compose' | 'chart';
  readonly run?: Exec;
}

/** The files of one release under locks/, the lock first (its presence says the release was published). */
export function releaseFiles(release: string, kind: 'compose' | 'chart'): string[] {
  if (kind === 'compose') return [`release-${release}.json`, `release-${release}.json.sigstore.json`];
  return [
    `release-${release}.chart.json`,
    `release-${release}.chart.json.sigstore.json`,
    `release-${release}.chart.tgz.sigstore.json`,
    `release-${release}.evidence.json`,
    `release-${release}.evidence.json.sigstore.json`,
  ];
}

const ATTEMPTS = 3;

/** Commits the signed release lock under `locks/` on deploy-state without force; a release's lock is written once. */
export async function publishReleaseLock(options: PublishLockOptions): Promise<{ commit: string; files: string[] }> {
  const names = releaseFiles(options.release, options.kind ?? 'compose');
  const present = new Set(await readdir(options.dir).catch(() => []));
  const missing = names.filter((n) => !present.has(n));
  if (missing.length > 0)
    throw new CiError(
      'lock-files',
      `Cannot publish the lock of ${options.release}: "${options.dir}" has no ${missing.join(', ')}`,
      { details: { dir: options.dir, missing } },
    );
  const files = await Promise.all(
    names.map(async (n) => ({ path: `locks/${n}`, bytes: await readFileBounded(join(options.dir, n)) })),
  );
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const repo = await openDeployStateRepo(options.repository, options.branch, options.run);
    try {
      if (repo.head !== undefined) {
        const [lock] = await readBlobs(repo.git, repo.head, [files[0]?.path ?? '']);
        // Hosts verify the lock they first see for a tag; replacing it would make hosts disagree about a release.
        if (lock?.kind !== 'missing')
          throw new CiError(
            'lock-exists',
            `Cannot publish the lock of ${options.release}: deploy-state already holds ${files[0]?.path}`,
            { details: { release: options.release } },
          );
      }
      const commit = await commitFiles(repo, files, `locks: ${options.release}\n`);
      if ((await pushCommit(repo, commit)) === 'pushed') return { commit, files: files.map((f) => f.path) };
    } finally {
      await repo.close();
    }
  }
  throw new CiError(
    'conflict',
    `Cannot publish the lock of ${options.release}: deploy-state moved during ${ATTEMPTS} attempts`,
  );
}
