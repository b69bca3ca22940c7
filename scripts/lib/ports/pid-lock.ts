import { open, readFile, unlink } from 'node:fs/promises';

export type PidLock =
  | { readonly held: true; release(): Promise<void> }
  | {
      readonly held: false /** The live process that holds it, or undefined when it kept changing hands. */;
      readonly holder: number | undefined;
    };

/** True while a process with this pid exists (ours to signal or not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An O_EXCL file holding our pid; the file of a process that no longer runs (a killed run) is taken over. */
export async function acquirePidLock(file: string, mode = 0o644): Promise<PidLock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', mode);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return { held: true, release: () => unlink(file).catch(() => {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) return { held: false, holder: pid };
      await unlink(file).catch(() => {});
    }
  }
  return { held: false, holder: undefined };
}
