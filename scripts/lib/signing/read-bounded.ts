import { open } from 'node:fs/promises';
import { VerificationError } from './signing-error.ts';

/** Every file from outside is refused above this size before it is read whole (spec: 1 MiB). */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;

/** Reads a file only if it is at most `limit` bytes: the size is checked on the open handle first, and a file that grows meanwhile is cut off at limit + 1 and refused. */
export async function readFileBounded(path: string, limit: number = MAX_ARTIFACT_BYTES): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limit) throw tooLarge(path, size, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(Math.max(size - total, 0) + 1, limit + 1 - total);
      if (want <= 0) break;
      const chunk = Buffer.allocUnsafe(Math.max(want, 4096));
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, limit + 1 - total), total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > limit) throw tooLarge(path, total, limit);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
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
