import { acquirePidLock } from '../ports/pid-lock.ts';
import { TargetError } from './target-error.ts';

export interface LocalLock {
  release(): Promise<void>;
}

/** One delivery per checkout and target: an O_EXCL pid file; a dead process's file is taken over. */
export async function acquireLocalLock(file: string, what: string): Promise<LocalLock> {
  const lock = await acquirePidLock(file);
  if (lock.held) return lock;
  if (lock.holder !== undefined) {
    throw new TargetError(
      'delivery-in-progress',
      `Cannot start ${what}: process ${lock.holder} of this checkout is delivering to it (lock "${file}")`,
      {
        details: { pid: lock.holder, file },
      },
    );
  }
  throw new TargetError('delivery-in-progress', `Cannot start ${what}: the lock "${file}" keeps changing hands`);
}
