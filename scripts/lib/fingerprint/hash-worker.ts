import { parentPort, workerData } from 'node:worker_threads';
import { hashFileInto } from './hash-file-sync.ts';
import { tablePath } from './disk-file-table.ts';
import type { DiskFileTable } from './disk-file-table.ts';
import type { FileDigests } from './file-digests.ts';

/** What the thread starts with: the table to read and the digests to fill, both in shared memory. */
export interface HashWorkerData {
  readonly prefix: string;
  readonly table: DiskFileTable;
  readonly digests: FileDigests;
}

/** A range of the table hashed, or the first file of it that could not be read. */
export type HashWorkerReply = { readonly to: number } | { readonly failed: number; readonly error: string };

// Structured cloning turns a Buffer into a plain Uint8Array over the same shared memory.
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const data = workerData as HashWorkerData;
const table = { ...data.table, paths: asBuffer(data.table.paths) };
const digests = { ...data.digests, sha256: asBuffer(data.digests.sha256) };

// One range [from, to) of the table in, its digests written in place, one small reply out.
parentPort?.on('message', ([from, to]: [number, number]) => {
  for (let i = from; i < to; i++) {
    try {
      hashFileInto(
        data.prefix + tablePath(table, i),
        table.sizes[i] ?? -1,
        table.flags[i] ?? 0,
        table.stampNs,
        digests,
        i,
      );
    } catch (error) {
      parentPort?.postMessage({ failed: i, error: error instanceof Error ? error.message : String(error) });
      return;
    }
  }
  parentPort?.postMessage({ to } satisfies HashWorkerReply);
});
