import { parentPort } from 'node:worker_threads';
import { join } from 'node:path';
import { hashFileSync } from './hash-file-sync.ts';
import type { DiskFile } from './hash-file-sync.ts';

interface Job {
  readonly root: string;
  readonly files: readonly DiskFile[];
}

// One batch in, one array of digests (or error strings) out.
parentPort?.on('message', (job: Job) => {
  const out = job.files.map((file) => {
    try {
      return hashFileSync(join(job.root, file.path), file);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  });
  parentPort?.postMessage(out);
});
