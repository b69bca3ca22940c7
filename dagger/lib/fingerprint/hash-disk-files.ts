import { Worker } from 'node:worker_threads';
import { availableParallelism, loadavg } from 'node:os';
import { hashFileInto } from './hash-file-sync.ts';
import { sharedTable, tablePath } from './disk-file-table.ts';
import type { DiskFileTable } from './disk-file-table.ts';
import { fileDigests } from './file-digests.ts';
import type { FileDigests } from './file-digests.ts';
import type { HashWorkerData, HashWorkerReply } from './hash-worker.ts';
import { FingerprintError } from './fingerprint-error.ts';
import type { HashProgress } from './tree-source.ts';

export interface HashOptions {
  /** Below this many bytes (sizes unknown count as a typical source file) one thread hashes everything. */
  readonly parallelBytes?: number;
  /** Worker threads beside the main thread; by default one per idle core (up to 3), none for little to read. */
  readonly workers?: number;
}

const PARALLEL_BYTES = 32 << 20;
// Small enough that the main thread answers its worker often, large enough that messages stay few.
const BATCH_BYTES = 4 << 20;
const BATCH_FILES = 500;
const TYPICAL_BYTES = 16_384;

const WORKER = new URL('./hash-worker.ts', import.meta.url);
// The thread's entry in plain JavaScript turns the compile cache on before it loads the hashing module: from the
// second run on, that module comes from the cache and the thread never starts Node's TypeScript stripper (~17 MB).
// Deno and Bun run TypeScript without a stripper and take the module itself.
const WORKER_BOOT = `require('node:module').enableCompileCache?.(); import(${JSON.stringify(WORKER.href)});`;

function startWorker(workerData: HashWorkerData): Worker {
  if (process.versions.deno !== undefined || process.versions.bun !== undefined)
    return new Worker(WORKER, { workerData });
  return new Worker(WORKER_BOOT, { eval: true, workerData });
}

function fail(path: string, message: string): never {
  throw new FingerprintError('read-failed', `Cannot read "${path}": ${message}`, { details: { path } });
}

/** Bytes a file counts for when scheduling: its size, or a typical source file's when no stat said. */
const scheduledBytes = (size: number | undefined) => (size !== undefined && size >= 0 ? size : TYPICAL_BYTES);

/**
 * A worker thread pays only on a core nobody else is using: on a busy machine it shares a core with the main thread
 * and adds its start-up (~60 ms of CPU) and ~20 MB of RSS for no gain in time (docs/benchmarks.md, the cold path).
 */
function idleCores(): number {
  const cores = availableParallelism();
  const idle = Math.round(cores - (loadavg()[0] ?? 0)) - 1; // the main thread takes one
  return Math.max(0, Math.min(idle, Math.min(cores, 4) - 1));
}

/** Worker threads for `files` files of `bytes` in all (their table goes in shared memory when any). */
export function hashWorkers(files: number, bytes: number, options: HashOptions = {}): number {
  if (files < 2 || bytes < (options.parallelBytes ?? PARALLEL_BYTES)) return 0;
  return options.workers ?? idleCores();
}

/** Hashes file `i` of `table` into `out`, or fails naming its path. */
function hashAt(prefix: string, table: DiskFileTable, out: FileDigests, i: number): void {
  const path = tablePath(table, i);
  try {
    hashFileInto(prefix + path, table.sizes[i] ?? -1, table.flags[i] ?? 0, table.stampNs, out, i);
  } catch (error) {
    fail(path, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Hashes files on disk, also on idle cores when there is enough to read; digests index for index with the table. A
 * worker thread reads the table and writes digests in shared memory: its messages are ranges, never per-file objects.
 */
export async function hashDiskTable(
  root: string,
  table: DiskFileTable,
  progress?: HashProgress,
  options: HashOptions = {},
): Promise<FileDigests> {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const n = table.count;
  const sizeOf = (i: number) => scheduledBytes(table.sizes[i]);
  let totalBytes = 0;
  for (let i = 0; i < n; i++) totalBytes += sizeOf(i);
  const total = { files: n, bytes: totalBytes };
  const done = { files: 0, bytes: 0 };
  const workers = hashWorkers(n, totalBytes, options);
  if (workers === 0) {
    const out = fileDigests(n);
    for (let i = 0; i < n; i++) {
      hashAt(prefix, table, out, i);
      done.files++;
      done.bytes += out.bytes[i] ?? 0;
      if (progress && done.files % 1000 === 0) progress(done, total);
    }
    return out;
  }
  // Ranges of bounded size go to whichever thread is free, so one huge file cannot starve the rest. The main thread
  // hashes too, between messages: a worker thread costs its own heap and start-up, so two cores take one worker.
  const shared = sharedTable(table);
  const out = fileDigests(n, true);
  const ranges: [number, number][] = [];
  for (let from = 0, bytes = 0, i = 0; i < n; i++) {
    bytes += sizeOf(i);
    if (bytes >= BATCH_BYTES || i + 1 - from >= BATCH_FILES || i === n - 1) {
      ranges.push([from, i + 1]);
      from = i + 1;
      bytes = 0;
    }
  }
  let next = 0;
  let failed = false; // after a failure no thread takes another range
  const take = () => (!failed && next < ranges.length ? ranges[next++] : undefined);
  const record = ([from, to]: readonly [number, number]) => {
    for (let i = from; i < to; i++) done.bytes += out.bytes[i] ?? 0;
    done.files += to - from;
    progress?.(done, total);
  };
  const runWorker = async (): Promise<void> => {
    const workerData: HashWorkerData = { prefix, table: shared, digests: out };
    const worker = startWorker(workerData);
    const waiting: { resolve: (reply: HashWorkerReply) => void; reject: (error: Error) => void }[] = [];
    const abort = (error: Error) => {
      for (const w of waiting.splice(0)) w.reject(error);
    };
    worker.on('message', (reply: HashWorkerReply) => waiting.shift()?.resolve(reply));
    worker.on('error', abort);
    worker.on('exit', (code) => abort(new Error(`the hashing thread stopped (exit status ${code})`)));
    const send = (range: readonly [number, number]) =>
      new Promise<HashWorkerReply>((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(range);
      });
    try {
      // Two ranges in flight: the worker finds its next one queued while the main thread is busy hashing.
      const inFlight: [readonly [number, number], Promise<HashWorkerReply>][] = [];
      for (let range = take(); range !== undefined || inFlight.length > 0; range = take()) {
        if (range !== undefined) {
          const reply = send(range);
          reply.catch(() => {}); // a crashed worker rejects both ranges in flight: the one awaited first reports it
          inFlight.push([range, reply]);
          if (inFlight.length < 2) continue;
        }
        const [sent, reply] = inFlight.shift() as [readonly [number, number], Promise<HashWorkerReply>];
        const answer = await reply.catch((error: unknown) => {
          failed = true;
          throw error;
        });
        if ('failed' in answer) {
          failed = true;
          fail(tablePath(shared, answer.failed), answer.error);
        }
        record(sent);
      }
    } finally {
      await worker.terminate();
    }
  };
  const runMain = async (): Promise<void> => {
    for (let range = take(); range !== undefined; range = take()) {
      try {
        for (let i = range[0]; i < range[1]; i++) hashAt(prefix, shared, out, i);
      } catch (error) {
        failed = true;
        throw error;
      }
      record(range);
      await new Promise((resolve) => setImmediate(resolve)); // lets the worker's replies in
    }
  };
  await Promise.all([...Array.from({ length: Math.min(workers, ranges.length) }, runWorker), runMain()]);
  return out;
}
