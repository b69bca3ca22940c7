import { mkdir, writeFile, access } from 'node:fs/promises';
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
