// Helpers for root file systems assembled from this machine's own files (the ldd closure of binaries), imported with `docker import`.
import { copyFile, mkdir, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { exec, execOk } from '../ports/exec.ts';

/** Every shared library `ldd` names for these binaries or libraries (the dynamic loader included), deduplicated. */
export async function sharedLibraries(binaries: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const binary of binaries) {
    const ldd = await execOk(exec, 'ldd', [binary]);
    for (const line of ldd.stdout.toString('utf8').split('\n')) {
      const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
      if (path !== undefined) out.add(path);
    }
  }
  return [...out].sort();
}

/** Copies `from` (symlinks resolved) to `to` inside `root`, making its folders. */
export async function placeFile(root: string, from: string, to = from): Promise<void> {
  await mkdir(join(root, dirname(to)), { recursive: true });
  await copyFile(await realpath(from), join(root, to));
}
