// Secrets, keys and records are read only from regular files: never through a symlink, never from a FIFO or a device
// (a FIFO with no writer would block the open, and with it the whole command, forever).
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ToolkitError } from '../errors/toolkit-error.ts';

export type RegularFileErrorCode = 'missing' | 'symlink' | 'not-regular' | 'changed' | 'too-large' | 'unreadable';

/** A file that is not a plain regular file, or that cannot be read: exit 2 (the same file fails until someone fixes it). */
export class RegularFileError extends ToolkitError<RegularFileErrorCode> {
  /** Why, without the file name: for callers that word the message their own way. */
  get reason(): string {
    return String(this.details.reason);
  }
}

/** What a non-regular file is, in the words `ls -l` readers use. */
export function fileKind(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a directory';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const fail = (code: RegularFileErrorCode, file: string, why: string, cause?: unknown) =>
  new RegularFileError(code, `Cannot read "${file}": ${why}`, { exitCode: 2, cause, details: { file, reason: why } });

/** Opens `file` without following a symlink and without blocking; the handle must be the regular file `lstat` saw. */
export async function openRegularFile(file: string): Promise<{ handle: FileHandle; info: Stats }> {
  const seen = await lstat(file).catch((cause: NodeJS.ErrnoException) => {
    throw cause.code === 'ENOENT'
      ? fail('missing', file, 'it does not exist', cause)
      : fail('unreadable', file, cause.code ?? cause.message, cause);
  });
  if (seen.isSymbolicLink()) throw fail('symlink', file, 'it is a symbolic link; it must be a regular file');
  if (!seen.isFile()) throw fail('not-regular', file, `it is ${fileKind(seen)}, not a regular file`);
  // O_NONBLOCK: a FIFO swapped in after the lstat opens at once (and is refused below) instead of waiting for a writer.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (cause: NodeJS.ErrnoException) => {
      throw cause.code === 'ELOOP'
        ? fail('symlink', file, 'it is a symbolic link; it must be a regular file', cause)
        : fail('unreadable', file, cause.code ?? cause.message, cause);
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.ino !== seen.ino || info.dev !== seen.dev)
      throw fail('changed', file, 'it was replaced while it was opened; it must be a regular file');
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads at most `limit` bytes from an open handle of `size` bytes; a file that grows meanwhile is refused at limit + 1. */
export async function readHandleBounded(
  handle: FileHandle,
  size: number,
  limit: number,
  tooLarge: (bytes: number) => Error,
): Promise<Buffer> {
  if (size > limit) throw tooLarge(size);
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
  if (total > limit) throw tooLarge(total);
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/** The whole of a regular file of at most `limit` bytes, with its `stat` (for mode and owner checks). */
export async function readRegularFile(file: string, limit: number): Promise<{ bytes: Buffer; info: Stats }> {
  const { handle, info } = await openRegularFile(file);
  try {
    const bytes = await readHandleBounded(handle, info.size, limit, (n) =>
      fail('too-large', file, `${n} bytes is over the limit of ${limit} bytes`),
    );
    return { bytes, info };
  } finally {
    await handle.close();
  }
}
