import { join } from 'node:path';
import { checkLockMatches, lockEnv } from '../lock/check-lock.ts';
import { LockError } from '../lock/lock-error.ts';
import { lockFileName } from '../lock/lock-schema.ts';
import type { ReleaseLock } from '../lock/lock-schema.ts';
import { parseLock } from '../lock/parse-lock.ts';
import { writeFileAtomic } from '../ports/atomic-write.ts';
import { verifyBundle } from '../signing/verify-bundle.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { tooLarge } from '../signing/read-bounded.ts';
import type { DeployStateCheckout } from './deploy-state-cache.ts';
import { readBlobs } from './deploy-state-cache.ts';
import { fetchBounded } from './fetch-bounded.ts';

export interface LockSource {
  readonly checkout: DeployStateCheckout;
  /** HEPHAESTUS_RELEASE_URL: locks come from `<url>/<tag>/<file>` instead of deploy-state's `locks/`. */
  readonly releaseUrl: string | undefined;
  /** Bounds each download from HEPHAESTUS_RELEASE_URL. */
  readonly timeoutMs?: number;
}

/** Release files of `tag` (a lock, its bundle, a chart's bundle) from HEPHAESTUS_RELEASE_URL or deploy-state `locks/`, each at most 1 MiB. */
export async function releaseAssets(source: LockSource, tag: string, names: readonly string[]): Promise<Buffer[]> {
  if (source.releaseUrl !== undefined) {
    const base = source.releaseUrl.replace(/\/+$/, '');
    const got = await Promise.all(
      names.map((name) => fetchBounded(`${base}/${tag}/${name}`, undefined, source.timeoutMs)),
    );
    const missing = got.findIndex((b) => b === undefined);
    if (missing !== -1) throw new LockError('missing', `Cannot find ${names[missing]} under "${base}/${tag}/"`);
    return got as Buffer[];
  }
  const reads = await readBlobs(
    source.checkout.git,
    source.checkout.commit,
    names.map((n) => `locks/${n}`),
  );
  const out: Buffer[] = [];
  reads.forEach((read, index) => {
    const name = `locks/${names[index]}`;
    if (read.kind === 'missing')
      throw new LockError('missing', `Cannot find ${name} on deploy-state ${source.checkout.commit}`);
    if (read.kind === 'too-large') throw tooLarge(name, read.size);
    out.push(read.bytes);
  });
  return out;
}

async function lockBytes(source: LockSource, tag: string, file: string): Promise<[Buffer, Buffer]> {
  const [lock, bundle] = await releaseAssets(source, tag, [file, `${file}.sigstore.json`]);
  return [lock as Buffer, bundle as Buffer];
}

/** Fetches, verifies (release identity, exact bytes), parses and matches a release lock to its tag's commit. */
export async function verifiedReleaseLock(
  source: LockSource,
  tag: string,
  tagCommit: string,
  kind: 'compose' | 'chart',
  policy: TrustPolicy,
): Promise<ReleaseLock> {
  const file = lockFileName(tag, kind);
  const [bytes, bundle] = await lockBytes(source, tag, file);
  verifyBundle({ artifact: bytes, bundle, label: file }, policy);
  const lock = parseLock(bytes, file, kind);
  checkLockMatches(lock, tag, tagCommit, file);
  return lock;
}

/** `<root>/release-locks/<target>.env`, mode 0600, written atomically. */
export async function writeLockEnv(path: string, lock: ReleaseLock): Promise<void> {
  await writeFileAtomic(path, lockEnv(lock), { mode: 0o600 });
}

export function lockEnvPath(root: string, target: string): string {
  return join(root, 'release-locks', `${target}.env`);
}

/** The lock env lines of a commit target (the same format as a verified release lock's). */
export function commitLockEnv(commit: string, images: Readonly<Record<string, string>>): string {
  const lines = [
    `HEPHAESTUS_COMMIT=${commit}`,
    ...Object.keys(images)
      .sort()
      .map((k) => `${k}=${images[k]}`),
  ];
  return `${lines.join('\n')}\n`;
}
