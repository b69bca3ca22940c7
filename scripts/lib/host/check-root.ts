import { chmod, lstat, mkdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { HostError } from './host-error.ts';

/** The state a tick trusts under HEPHAESTUS_ROOT: another local user who could replace any of these could steer the host. */
export const STATE_ENTRIES = [
  'applied.json',
  'failed-attempt.json',
  'tick.lock',
  'release-locks',
  'releases',
  'cache',
  'metrics',
  'checkout',
] as const;

/** Why a file's owner or mode lets someone else change it; undefined when only `uid` can. Pure. */
export function unsafeOwnership(info: Pick<Stats, 'uid' | 'mode'>, uid: number | undefined): string | undefined {
  if (uid !== undefined && info.uid !== uid) return `owned by uid ${info.uid}, not ${uid} (this process)`;
  if ((info.mode & 0o022) !== 0)
    return `mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')} lets ${(info.mode & 0o002) !== 0 ? 'every user' : 'its group'} write it`;
  return undefined;
}

function refuse(path: string, why: string): HostError {
  return new HostError('config', `Cannot trust "${path}": ${why}; fix it (chown, chmod go-w) before the next tick`, {
    exitCode: 2,
    details: { file: path },
  });
}

/**
 * Creates HEPHAESTUS_ROOT (0750) if missing, then refuses (exit 2) a root or state entry that another user owns or can
 * write, or a state entry that is a symlink. Nothing is changed when it refuses.
 */
export async function checkHostRoot(root: string, uid: number | undefined = process.getuid?.()): Promise<void> {
  const made = await mkdir(root, { recursive: true, mode: 0o750 });
  if (made !== undefined) await chmod(root, 0o750); // mkdir's mode passes through the umask
  const info = await stat(root);
  if (!info.isDirectory()) throw refuse(root, 'not a directory');
  const rootWhy = unsafeOwnership(info, uid);
  if (rootWhy !== undefined) throw refuse(root, rootWhy);
  for (const name of STATE_ENTRIES) {
    const path = join(root, name);
    const entry = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (entry === undefined) continue;
    if (entry.isSymbolicLink()) throw refuse(path, 'it is a symlink');
    const why = unsafeOwnership(entry, uid);
    if (why !== undefined) throw refuse(path, why);
  }
  // The tooling link decides which reconciler the timer runs: a symlink by design, so only its owner counts.
  const link = await lstat(join(root, 'tooling')).catch(() => undefined);
  if (link !== undefined && uid !== undefined && link.uid !== uid)
    throw refuse(join(root, 'tooling'), `owned by uid ${link.uid}, not ${uid} (this process)`);
}
