import { parentPort } from 'node:worker_threads';
import { join } from 'node:path';
import { hashFileSync } from './hash-file-sync.ts';

interface Job {
  readonly root: string;
  readonly files: readonly { readonly path: string; readonly symlink: boolean }[];
}

// One batch in, one array of hashes (or error strings) out.
parentPort?.on('message', (job: Job) => {
  const out = job.files.map((file) => {
    try {
      return { sha256: hashFileSync(join(job.root, file.path), file.symlink) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  });
  parentPort?.postMessage(out);
});
