import { readRegularFile } from '../ports/regular-file.ts';
import { MAX_ARTIFACT_BYTES } from '../signing/read-bounded.ts';

/** A private key file: a regular file (no symlink, no FIFO), at most 1 MiB; errors are usage errors naming the file. */
export async function readKeyFile(file: string): Promise<Buffer> {
  return (await readRegularFile(file, MAX_ARTIFACT_BYTES)).bytes;
}
