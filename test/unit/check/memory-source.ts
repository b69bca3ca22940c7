import { createHash } from 'node:crypto';
import { isAtOrUnder } from '../../../scripts/lib/catalogue/index.ts';
import { compareBytewise } from '../../../scripts/lib/fingerprint/index.ts';
import type { TreeSource } from '../../../scripts/lib/fingerprint/index.ts';

/** A TreeSource over an in-memory map of path → text, for pure rule tests (git-backed ones use real repos). */
export function memorySource(files: Record<string, string>): TreeSource {
  const paths = Object.keys(files).sort(compareBytewise);
  return {
    kind: 'git',
    id: 'memory',
    root: '/nonexistent',
    readFile: async (path) => (files[path] === undefined ? undefined : Buffer.from(files[path] ?? '')),
    list: async (prefixes) =>
      paths.filter((p) => prefixes.some((x) => isAtOrUnder(p, x))).map((path) => ({ path, mode: '100644' as const })),
    hash: async (entries) =>
      entries.map((e) =>
        createHash('sha256')
          .update(files[e.path] ?? '')
          .digest('hex'),
      ),
  };
}
