import { LockError } from './lock-error.ts';
import type { ReleaseLock } from './lock-schema.ts';

/** The lock is for this tag, and its commit is the tag's commit. */
export function checkLockMatches(lock: ReleaseLock, tag: string, tagCommit: string, file: string): void {
  if (lock.release !== tag)
    throw new LockError('match', `Cannot use lock "${file}": release "${lock.release}" is not the requested "${tag}"`, {
      details: { file, release: lock.release, tag },
    });
  if (lock.commit !== tagCommit)
    throw new LockError(
      'match',
      `Cannot use lock "${file}": commit ${lock.commit} is not the commit of tag "${tag}" (${tagCommit})`,
      { details: { file, commit: lock.commit, tagCommit } },
    );
}

/** An image a rendered Compose file or chart uses, and the variable it came from. */
export interface ImageUse {
  readonly variable: string;
  readonly image: string;
  /** Where it was found, for errors (e.g. `docker/compose.core.yaml: services.api.image`). */
  readonly where: string;
}

/** Each used image must be exactly the lock's pin for its own HEPHAESTUS_IMAGE_* variable: another service's digest does not pass. */
export function checkImageBindings(lock: ReleaseLock, uses: readonly ImageUse[]): void {
  for (const use of uses) {
    const pinned = lock.images[use.variable];
    if (pinned === undefined)
      throw new LockError(
        'binding',
        `Cannot use image at ${use.where}: variable "${use.variable}" is not in the lock of ${lock.release}`,
        { details: { ...use } },
      );
    if (pinned !== use.image) {
      const owner = Object.entries(lock.images).find(([, ref]) => ref === use.image)?.[0];
      const why = owner === undefined ? 'is not pinned by the lock' : `is pinned for "${owner}", not "${use.variable}"`;
      throw new LockError('binding', `Cannot use image "${use.image}" at ${use.where}: it ${why}`, {
        details: { ...use, pinned },
      });
    }
  }
}

/** The verified lock as KEY=value lines for `release-locks/<target>.env`. */
export function lockEnv(lock: ReleaseLock): string {
  // HEPHAESTUS_RELEASE_COMMIT is the name the pull-deployment document's tooling-update commands read.
  const lines = [
    `HEPHAESTUS_RELEASE=${lock.release}`,
    `HEPHAESTUS_COMMIT=${lock.commit}`,
    `HEPHAESTUS_RELEASE_COMMIT=${lock.commit}`,
  ];
  if ('kind' in lock)
    lines.push(
      `HEPHAESTUS_CHART_NAME=${lock.chart.name}`,
      `HEPHAESTUS_CHART_VERSION=${lock.chart.version}`,
      `HEPHAESTUS_CHART_REFERENCE=${lock.chart.reference}`,
    );
  for (const key of Object.keys(lock.images).sort()) lines.push(`${key}=${lock.images[key]}`);
  return `${lines.join('\n')}\n`;
}
