import { open, readFile, unlink } from 'node:fs/promises';
import { DevboxError } from './devbox-error.ts';

export interface LocalLock {
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One delivery per checkout and target: an O_EXCL pid file; a dead process's file is taken over. */
export async function acquireLocalLock(file: string, what: string): Promise<LocalLock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o644);
      await handle.write(`${process.pid}\n`);
      await handle.close();
      return { release: () => unlink(file).catch(() => {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new DevboxError('delivery-in-progress', `Cannot start ${what}: process ${pid} of this checkout is delivering to it (lock "${file}")`, { details: { pid, file } });
      }
      await unlink(file).catch(() => {}); // a killed run's lock
    }
  }
  throw new DevboxError('delivery-in-progress', `Cannot start ${what}: the lock "${file}" keeps changing hands`);
}
