import { createHash } from 'node:crypto';
import { acquirePidLock } from '../ports/pid-lock.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PromotionError } from './promotion-error.ts';

export function defaultLockPath(repository: string, environment: string): string {
  const key = createHash('sha256').update(`${repository}\0${environment}`).digest('hex').slice(0, 16);
  return join(tmpdir(), `hephaestus-promote-${key}.lock`);
}

/** Holds an exclusive lock file (O_EXCL, our pid inside) for the duration of `body`; a dead holder's lock is taken over. */
export async function withPromotionLock<T>(path: string, body: () => Promise<T>): Promise<T> {
  const lock = await acquirePidLock(path, 0o600);
  if (!lock.held) {
    if (lock.holder !== undefined) {
      throw new PromotionError('locked', `Cannot promote: another promotion (pid ${lock.holder}) holds "${path}"`, {
        details: { path, holder: lock.holder },
      });
    }
    throw new PromotionError('locked', `Cannot take the promotion lock "${path}"`, { details: { path } });
  }
  try {
    return await body();
  } finally {
    await lock.release();
  }
}
