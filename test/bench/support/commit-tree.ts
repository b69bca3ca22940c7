// Shared by the benchmark tree generators: commit a generated folder, and wait for the kernel to write it back.
import { execFileSync } from 'node:child_process';

export interface BenchTree {
  readonly name: string;
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
}

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

/**
 * Flushes dirty pages: timing a freshly written tree while the kernel still writes it back made the
 * cold case look 1.5x slower, so every benchmark waits for that first.
 */
export function settle(): void {
  execFileSync('sync');
}

/** `git init` + `add -A` + commit; counts what git tracks (files and bytes of the HEAD tree). */
export function commitTree(dir: string, name: string): BenchTree {
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  execFileSync('git', ['-C', dir, 'add', '-A'], { env, maxBuffer: 1 << 28 });
  execFileSync('git', ['-C', dir, 'commit', '-q', '--no-verify', '-m', `bench: ${name}`], { env, maxBuffer: 1 << 28 });
  const listing = execFileSync('git', ['-C', dir, 'ls-tree', '-r', '-l', '-z', 'HEAD'], {
    env,
    maxBuffer: 1 << 28,
  }).toString('utf8');
  let files = 0;
  let bytes = 0;
  for (const record of listing.split('\0')) {
    if (record === '') continue;
    files++;
    bytes += Number(record.split('\t')[0]?.trim().split(/\s+/)[3]) || 0;
  }
  settle();
  return { name, dir, files, bytes };
}
