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
  readonly run?: Exec;
}

const ATTEMPTS = 3;

/** Commits the signed release lock under `locks/` on deploy-state without force; a release's lock is written once. */
export async function publishReleaseLock(options: PublishLockOptions): Promise<{ commit: string; files: string[] }> {
  const names = [`release-${options.release}.json`, `release-${options.release}.json.sigstore.json`];
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
