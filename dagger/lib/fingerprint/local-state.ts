import { mkdir, writeFile, access } from 'node:fs/promises';
import { mkdirSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LOCAL_DIR = '.local';

/** `.local/` holds the toolkit's own state; its `.gitignore` keeps it out of every file set and commit. */
export async function ensureLocalDir(root: string, ...sub: string[]): Promise<string> {
  const base = join(root, LOCAL_DIR);
  const dir = join(base, ...sub);
  await mkdir(dir, { recursive: true });
  const ignore = join(base, '.gitignore');
  try {
    await access(ignore);
  } catch {
    await writeFile(ignore, '*\n');
  }
  return dir;
}

export function isLocalStatePath(path: string): boolean {
  return path === LOCAL_DIR || path.startsWith(`${LOCAL_DIR}/`);
}

/**
 * The filesystem's own clock now: the mtime of a marker written under `.local/fingerprint/`. Files
 * changed after this instant have an mtime and ctime at or past it (git's racy-clean reasoning).
 * Undefined when the folder cannot be written (a read-only checkout): callers then prove content otherwise.
 */
export function fsStampSync(root: string): bigint | undefined {
  try {
    const base = join(root, LOCAL_DIR);
    mkdirSync(join(base, 'fingerprint'), { recursive: true });
    const ignore = join(base, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '*\n'); // before git looks, or it reports .local/ as untracked
    const marker = join(base, 'fingerprint', 'stamp');
    writeFileSync(marker, String(process.pid));
    return statSync(marker, { bigint: true }).mtimeNs;
  } catch {
    return undefined;
  }
}
