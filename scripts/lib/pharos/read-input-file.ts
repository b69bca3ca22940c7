import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PharosError } from './pharos-error.ts';
import type { PharosErrorCode } from './pharos-error.ts';

/** A hook's input file (the secret inventory, the context registry), read whole; a missing one names its path. */
export async function readInputFile(
  path: string,
  code: PharosErrorCode,
  what: string,
): Promise<{ readonly file: string; readonly text: string }> {
  const file = resolve(path);
  try {
    return { file, text: await readFile(file, 'utf8') };
  } catch (error) {
    throw new PharosError(
      code,
      `Cannot read the ${what} "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
}
