import { createHash } from 'node:crypto';
import { open, readFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PromotionError } from './promotion-error.ts';

export function defaultLockPath(repository: string, environment: string): string {
  const key = createHash('sha256').update(`${repository}\0${environment}`).digest('hex').slice(0, 16);
  return join(tmpdir(), `hephaestus-promote-${key}.lock`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Holds an exclusive lock file (O_EXCL, our pid inside) for the duration of `body`; a dead holder's lock is taken over. */
export async function withPromotionLock<T>(path: string, body: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let handle;
    try {
      handle = await open(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new PromotionError('locked', `Cannot promote: another promotion (pid ${holder}) holds "${path}"`, { details: { path, holder } });
      }
      await unlink(path).catch(() => {});
      continue;
    }
    try {
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return await body();
    } finally {
      await unlink(path).catch(() => {});
    }
  }
  throw new PromotionError('locked', `Cannot take the promotion lock "${path}"`, { details: { path } });
}
