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

async function lockBytes(source: LockSource, tag: string, file: string): Promise<[Buffer, Buffer]> {
  const names = [file, `${file}.sigstore.json`];
  if (source.releaseUrl !== undefined) {
    const base = source.releaseUrl.replace(/\/+$/, '');
    const [lock, bundle] = await Promise.all(names.map((name) => fetchBounded(`${base}/${tag}/${name}`, undefined, source.timeoutMs)));
    if (lock === undefined || bundle === undefined) throw new LockError('missing', `Cannot find ${lock === undefined ? file : `${file}.sigstore.json`} under "${base}/${tag}/"`);
    return [lock, bundle];
  }
  const reads = await readBlobs(source.checkout.git, source.checkout.commit, names.map((n) => `locks/${n}`));
  const out: Buffer[] = [];
  reads.forEach((read, index) => {
    const name = `locks/${names[index]}`;
    if (read.kind === 'missing') throw new LockError('missing', `Cannot find ${name} on deploy-state ${source.checkout.commit}`);
    if (read.kind === 'too-large') throw tooLarge(name, read.size);
    out.push(read.bytes);
  });
  return [out[0] as Buffer, out[1] as Buffer];
}

/** Fetches, verifies (release identity, exact bytes), parses and matches a release lock to its tag's commit. */
export async function verifiedReleaseLock(source: LockSource, tag: string, tagCommit: string, kind: 'compose' | 'chart', policy: TrustPolicy): Promise<ReleaseLock> {
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
