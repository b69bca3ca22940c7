import { open } from 'node:fs/promises';
import { VerificationError } from './signing-error.ts';

/** Every file from outside is refused above this size before it is read whole (spec: 1 MiB). */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;

/** Reads a file only if it is at most `limit` bytes; the size is checked on the open handle, and a file that grows meanwhile is cut off and refused. */
export async function readFileBounded(path: string, limit: number = MAX_ARTIFACT_BYTES): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limit) throw tooLarge(path, size, limit);
    const buffer = Buffer.alloc(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > limit) throw tooLarge(path, filled, limit);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

export function tooLarge(file: string, size: number, limit: number = MAX_ARTIFACT_BYTES): VerificationError {
  return new VerificationError('too-large', `Cannot read "${file}": ${size} bytes is over the limit of ${limit} bytes`, {
    details: { file, size, limit },
  });
}
