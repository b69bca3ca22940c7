import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { hashFileSync } from './hash-file-sync.ts';
import type { DiskFile, FileDigest } from './hash-file-sync.ts';

export type { DiskFile };
import { FingerprintError } from './fingerprint-error.ts';
import type { HashProgress } from './tree-source.ts';


type WorkerResult = FileDigest | { error: string };

const PARALLEL_BYTES = 32 << 20;
const BATCH_BYTES = 64 << 20;

function fail(path: string, message: string): never {
  throw new FingerprintError('read-failed', `Cannot read "${path}": ${message}`, { details: { path } });
}

/** Hashes files on disk, on every core when there is enough to read; order of results = order of files. */
export async function hashDiskFiles(root: string, files: readonly DiskFile[], progress?: HashProgress): Promise<FileDigest[]> {
  // Unstat'ed files count as a typical source file for scheduling; the reads report the truth.
  const sizeOf = (f: DiskFile) => f.size ?? 16_384;
  const totalBytes = files.reduce((sum, f) => sum + sizeOf(f), 0);
  const total = { files: files.length, bytes: totalBytes };
  const done = { files: 0, bytes: 0 };
  const result = new Array<FileDigest>(files.length);
  const workers = Math.min(availableParallelism(), 4);
  if (totalBytes < PARALLEL_BYTES || files.length < 2 || workers < 2) {
    files.forEach((file, i) => {
      try {
        result[i] = hashFileSync(join(root, file.path), file);
      } catch (error) {
        fail(file.path, error instanceof Error ? error.message : String(error));
      }
      done.files++;
      done.bytes += result[i]?.bytes ?? 0;
      if (progress && done.files % 1000 === 0) progress(done, total);
    });
    return result;
  }
  // Batches of bounded size go to whichever worker is free, so one huge file cannot starve the rest.
  const batches: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  files.forEach((file, i) => {
    current.push(i);
    bytes += sizeOf(file);
    if (bytes >= BATCH_BYTES || current.length >= 2000) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
  });
  if (current.length > 0) batches.push(current);
  let next = 0;
  const run = async (): Promise<void> => {
    const worker = new Worker(new URL('./hash-worker.ts', import.meta.url));
    try {
      while (next < batches.length) {
        const batch = batches[next++] ?? [];
        const answer = await new Promise<WorkerResult[]>((resolve, reject) => {
          const onError = (error: Error) => reject(error);
          worker.once('error', onError);
          worker.once('message', (message: WorkerResult[]) => {
            worker.off('error', onError);
            resolve(message);
          });
          worker.postMessage({ root, files: batch.map((i) => files[i]) });
        });
        answer.forEach((item, k) => {
          const index = batch[k] ?? 0;
          if ('error' in item) fail(files[index]?.path ?? '?', item.error);
          result[index] = item;
          done.files++;
          done.bytes += item.bytes;
        });
        progress?.(done, total);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, batches.length) }, run));
  return result;
}
