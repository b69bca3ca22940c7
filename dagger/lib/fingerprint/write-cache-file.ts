import { open, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Atomic but not durable: a unique temp file renamed over the target, so readers see the old or the new
 * file, never half of one. No fsync: every cache file carries a SHA-256 of its body, so whatever a crash
 * leaves reads as empty and is rebuilt; two flushes per cache file per run cost more than they protect. Parts are
 * written in order, so a large cache need not be joined into one buffer first.
 */
export async function writeCacheFile(path: string, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    // On a handle, each writeFile() goes on from where the last one ended, and writes its part whole.
    for (const part of data instanceof Uint8Array ? [data] : data) await handle.writeFile(part);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  await rename(temp, path).catch(async (error: unknown) => {
    await unlink(temp).catch(() => {});
    throw error;
  });
}
