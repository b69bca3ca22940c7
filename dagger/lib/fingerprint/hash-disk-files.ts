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
// Small enough that the main thread answers its worker often, large enough that messages stay few.
const BATCH_BYTES = 4 << 20;
const BATCH_FILES = 500;

function fail(path: string, message: string): never {
  throw new FingerprintError('read-failed', `Cannot read "${path}": ${message}`, { details: { path } });
}

/** Hashes files on disk, on every core when there is enough to read; order of results = order of files. */
export async function hashDiskFiles(
  root: string,
  files: readonly DiskFile[],
  progress?: HashProgress,
): Promise<FileDigest[]> {
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
  // Batches of bounded size go to whichever thread is free, so one huge file cannot starve the rest. The main
  // thread hashes too, between messages: each worker thread costs ~30 MB and its own TypeScript start-up, so
  // both cores take one worker, not two.
  const batches: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  const close = () => {
    batches.push(current);
    current = [];
    bytes = 0;
  };
  files.forEach((file, i) => {
    current.push(i);
    bytes += sizeOf(file);
    if (bytes >= BATCH_BYTES || current.length >= BATCH_FILES) close();
  });
  if (current.length > 0) close();
  let next = 0;
  let failed = false; // after a failure no thread takes another batch
  const take = () => (!failed && next < batches.length ? batches[next++] : undefined);
  const record = (batch: readonly number[], answer: readonly WorkerResult[]) => {
    answer.forEach((item, k) => {
      const index = batch[k] ?? 0;
      if ('error' in item) {
        failed = true;
        fail(files[index]?.path ?? '?', item.error);
      }
      result[index] = item;
      done.files++;
      done.bytes += item.bytes;
    });
    progress?.(done, total);
  };
  const runWorker = async (): Promise<void> => {
    const worker = new Worker(new URL('./hash-worker.ts', import.meta.url));
    try {
      // Two batches in flight: the worker finds its next one queued while the main thread is busy hashing.
      const send = (batch: readonly number[]) =>
        new Promise<WorkerResult[]>((resolve, reject) => {
          const onError = (error: Error) => reject(error);
          worker.once('error', onError);
          worker.postMessage({ root, files: batch.map((i) => files[i]) });
          pending.push((answer) => {
            worker.off('error', onError);
            resolve(answer);
          });
        });
      const pending: ((answer: WorkerResult[]) => void)[] = [];
      worker.on('message', (answer: WorkerResult[]) => pending.shift()?.(answer));
      const inFlight: [readonly number[], Promise<WorkerResult[]>][] = [];
      for (let batch = take(); batch !== undefined || inFlight.length > 0; batch = take()) {
        if (batch !== undefined) {
          const answer = send(batch);
          answer.catch(() => {}); // a crashed worker rejects both batches in flight: the one awaited first reports it
          inFlight.push([batch, answer]);
        }
        if (batch !== undefined && inFlight.length < 2) continue;
        const [sent, answer] = inFlight.shift() as [readonly number[], Promise<WorkerResult[]>];
        record(
          sent,
          await answer.catch((error: unknown) => {
            failed = true;
            throw error;
          }),
        );
      }
    } finally {
      await worker.terminate();
    }
  };
  const runMain = async (): Promise<void> => {
    for (let batch = take(); batch !== undefined; batch = take()) {
      record(
        batch,
        batch.map((i) => {
          const file = files[i] as DiskFile;
          try {
            return hashFileSync(join(root, file.path), file);
          } catch (error) {
            return { error: error instanceof Error ? error.message : String(error) };
          }
        }),
      );
      await new Promise((resolve) => setImmediate(resolve)); // lets the worker's answers in
    }
  };
  await Promise.all([...Array.from({ length: Math.min(workers - 1, batches.length) }, runWorker), runMain()]);
  return result;
}
