import { readFile, rm, statfs } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-write.ts';

/** The file system as a tick uses it: bounded reads elsewhere, atomic writes here. */
export interface Fs {
  /** The bytes, or undefined when the file does not exist. */
  read(path: string): Promise<Buffer | undefined>;
  writeAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void>;
  remove(path: string): Promise<void>;
  freeBytes(path: string): Promise<number>;
}

export const nodeFs: Fs = {
  read: async (path) => {
    try {
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  writeAtomic: (path, data, mode) => writeFileAtomic(path, data, mode === undefined ? {} : { mode }),
  remove: (path) => rm(path, { force: true }),
  freeBytes: async (path) => {
    const s = await statfs(path);
    return s.bavail * s.bsize;
  },
};
