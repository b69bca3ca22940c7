import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileKind, readHandleBounded, RegularFileError } from '../ports/regular-file.ts';
import { VerificationError } from './signing-error.ts';

/** Every file from outside is refused above this size before it is read whole (spec: 1 MiB). */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;

/**
 * Reads a file only if it is a regular file of at most `limit` bytes: opened without blocking (a FIFO is refused, never
 * waited on), the size checked on the open handle first, and a file that grows meanwhile cut off at limit + 1 and refused.
 */
export async function readFileBounded(path: string, limit: number = MAX_ARTIFACT_BYTES): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new RegularFileError('not-regular', `Cannot read "${path}": it is ${fileKind(info)}, not a regular file`, {
        exitCode: 2,
        details: { file: path, reason: `it is ${fileKind(info)}, not a regular file` },
      });
    return await readHandleBounded(handle, info.size, limit, (size) => tooLarge(path, size, limit));
  } finally {
    await handle.close();
  }
}

export function tooLarge(file: string, size: number, limit: number = MAX_ARTIFACT_BYTES): VerificationError {
  return new VerificationError(
    'too-large',
    `Cannot read "${file}": ${size} bytes is over the limit of ${limit} bytes`,
    {
      details: { file, size, limit },
    },
  );
}
