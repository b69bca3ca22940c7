// `takeover stop`: asks this checkout's running `takeover start` (its pid file) to hand back, and waits for it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../ports/pid-lock.ts';

/** The lock a running `takeover start` holds in the target's state folder, its pid inside. */
export const startLockOf = (dir: string): string => join(dir, 'takeover.lock');

/** The pid of this checkout's `takeover start` for the target, when one runs (checked against its command line). */
export async function runningStart(lockFile: string): Promise<number | undefined> {
  const pid = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return undefined;
  const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  // A recycled pid must not be signalled: the process must still be a takeover start.
  if (argv !== undefined && !(argv.includes('takeover') && argv.split('\0').includes('start'))) return undefined;
  return pid;
}

/** SIGTERM, then wait (printing progress) until it has handed back and exited; false on timeout. */
export async function stopRunningStart(
  pid: number,
  log: (line: string) => void,
  timeoutMs = 10 * 60_000,
): Promise<boolean> {
  process.kill(pid, 'SIGTERM');
  const started = Date.now();
  let told = started;
  while (processAlive(pid)) {
    if (Date.now() - started > timeoutMs) return false;
    if (Date.now() - told >= 5000) {
      told = Date.now();
      log(`waiting for process ${pid} to hand back (${Math.round((told - started) / 1000)} s)`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
