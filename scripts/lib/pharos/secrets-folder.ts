// The folder a Job mounts its Secrets in: one file per key (Kubernetes links each through ..data).
import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { openRegularFile, RegularFileError } from '../ports/regular-file.ts';
import { PharosError } from './pharos-error.ts';

const MAX_BYTES = 4096;

/** The value of `key`, exactly as stored; a missing, empty, oversized or non-regular file names the file, never a value. */
export async function readSecretKey(folder: string, key: string): Promise<string> {
  const file = join(folder, key);
  const refuse = (why: string, cause?: unknown) =>
    new PharosError('secrets', `Cannot read secret "${key}" from "${file}": ${why}`, {
      details: { file, key },
      cause,
    });
  let handle;
  try {
    // Kubernetes projects each key as a link into the folder's own ..data: follow links only within the folder, then
    // open the target as a regular file (a FIFO would block the hook until its deadline).
    const [real, root] = await Promise.all([realpath(file), realpath(folder)]);
    if (!real.startsWith(root + sep)) throw refuse(`it links outside "${folder}"`);
    handle = (await openRegularFile(real)).handle;
  } catch (error) {
    if (error instanceof PharosError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || (error instanceof RegularFileError && error.code === 'missing'))
      throw refuse("missing (is the key projected into the Job's volume?)", error);
    throw refuse(error instanceof RegularFileError ? error.reason : (code ?? (error as Error).message), error);
  }
  try {
    const stat = await handle.stat();
    if (stat.size === 0 || stat.size > MAX_BYTES)
      throw new PharosError(
        'secrets',
        `Cannot read secret "${key}" from "${file}": ${stat.size} bytes (expected 1 to ${MAX_BYTES})`,
        { details: { file, key } },
      );
    const value = await handle.readFile('utf8');
    if (value.includes('\0'))
      throw new PharosError('secrets', `Cannot read secret "${key}" from "${file}": contains a NUL byte`, {
        details: { file, key },
      });
    return value;
  } finally {
    await handle.close();
  }
}
