// The folder a Job mounts its Secrets in: one file per key (Kubernetes links each through ..data).
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { PharosError } from './pharos-error.ts';

const MAX_BYTES = 4096;

/** The value of `key`, exactly as stored; a missing, empty, oversized or non-regular file names the file, never a value. */
export async function readSecretKey(folder: string, key: string): Promise<string> {
  const file = join(folder, key);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PharosError(
      'secrets',
      `Cannot read secret "${key}" from "${file}": ${code === 'ENOENT' ? "missing (is the key projected into the Job's volume?)" : code}`,
      { details: { file, key }, cause: error },
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw new PharosError('secrets', `Cannot read secret "${key}" from "${file}": not a regular file`, {
        details: { file, key },
      });
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
