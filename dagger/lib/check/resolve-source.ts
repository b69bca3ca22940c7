import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { SourceEntry } from '../fingerprint/tree-source.ts';
import { filesUnder } from './sorted-files.ts';

/** A COPY source as a repo path: relative to the context, `..` clamped at the context root as the builder does. */
export function resolveSource(context: string, source: string): string {
  const inside = posix.normalize(`/${source}`).replace(/^\/+|\/+$/g, '');
  if (inside === '' || inside === '.') return context;
  return context === '.' ? inside : `${context}/${inside}`;
}

export function isGlob(source: string): boolean {
  return /[*?[]/.test(source);
}

/**
 * The context paths a wildcard source names, matched as BuildKit does (Go `filepath.Match`:
 * `*` and `?` stop at `/`, `[...]` classes): files, or folders whose files are then copied.
 */
export function matchGlob(context: string, source: string, files: readonly SourceEntry[]): string[] {
  const pattern = resolveSource('.', source);
  const depth = pattern.split('/').length;
  const match = picomatch(pattern, { dot: true, nobrace: true, noextglob: true, noglobstar: true, nonegate: true });
  const prefix = context === '.' ? '' : `${context}/`;
  const found = new Set<string>();
  for (const file of filesUnder(files, context)) {
    const segments = file.path.slice(prefix.length).split('/');
    if (segments.length < depth) continue;
    const candidate = segments.slice(0, depth).join('/');
    if (match(candidate)) found.add(prefix + candidate);
  }
  return [...found];
}
