import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ToolkitError } from '../errors/toolkit-error.ts';
import type { FileHandle } from 'node:fs/promises';

export type FileLock =
  | { readonly held: true; release(): Promise<void> }
  | { readonly held: false /** The pid the holder wrote, if readable. */; readonly holder: number | undefined };

const BUSY = 75;

/** flock(1) on an fd we share with it: the lock belongs to our open file, so the kernel releases it when we exit, however we exit. */
function flockOnHandle(handle: FileHandle): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(BUSY), '3'], {
      stdio: ['ignore', 'ignore', 'pipe', handle.fd],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (cause) => reject(new Error(`Cannot run flock (util-linux): ${cause.message}`, { cause })));
    child.on('close', (code) =>
      code === 0 || code === BUSY ? resolve(code) : reject(new Error(`flock exited ${code}: ${stderr.trim()}`)),
    );
  });
}

/**
 * An exclusive, non-blocking advisory lock on `file` (created 0600 if missing) that never goes stale: no pid is trusted
 * to decide who holds it. The holder's pid is written into the file only for messages.
 */
export async function acquireFileLock(file: string): Promise<FileLock> {
  // O_NOFOLLOW: a symlink planted as the lock file must not make us create or truncate the file it points to.
  const handle = await open(
    file,
    constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
    0o600,
  ).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === 'ELOOP')
      throw new ToolkitError('unsafe-lock', `Cannot lock "${file}": it is a symbolic link; remove it`, {
        cause,
        details: { file },
        exitCode: 2,
      });
    throw cause;
  });
  let code: number;
  try {
    code = await flockOnHandle(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (code === BUSY) {
    const text = (await handle.readFile({ encoding: 'utf8' }).catch(() => '')).trim();
    await handle.close();
    const pid = Number(text);
    return { held: false, holder: Number.isInteger(pid) && pid > 0 ? pid : undefined };
  }
  await handle.truncate(0);
  await handle.write(`${process.pid}\n`, 0);
  return { held: true, release: () => handle.close() };
}
