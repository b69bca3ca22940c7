// The library reads files from a folder: the module exports the source Directory into its runtime's file system.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Directory } from '@dagger.io/dagger';
import { withGitFor } from './git-in-container.ts';

/** Runs `work` on a private copy of `source`, removed afterwards; the library's git sees the same Directory. */
export async function withSourceFolder<T>(source: Directory, work: (folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'pharos-dagger-source-'));
  try {
    await source.export(folder);
    return await withGitFor(folder, source, () => work(folder));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
