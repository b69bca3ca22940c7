import { dirname, isAbsolute, relative } from 'node:path';
import { parse } from 'yaml';
import { ApplyError } from '../apply-error.ts';
import { assertReleasePath } from '../release-files.ts';

type Yaml = Record<string, unknown>;
const isObject = (v: unknown): v is Yaml => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : isObject(v) && 'path' in v
        ? strings(v.path)
        : [];

/** A relative path Compose reads or mounts from the release (`./x`, `../x`, `x/y`); variables and absolute paths are the signed file's own intent. */
function isReleasePath(value: string): boolean {
  return value !== '' && !value.includes('$') && !isAbsolute(value) && !value.startsWith('~');
}

/**
 * Every file or folder a Compose stack file makes Compose read or bind-mount from the release, relative to the stack
 * file: include, extends.file, env_file, configs/secrets file, and relative bind-mount sources. Pure.
 */
export interface ReleaseReference {
  readonly path: string;
  /** A file Compose reads, or a bind-mount source (file or folder). */
  readonly kind: 'file' | 'mount';
}

export function stackFileReferences(text: string): ReleaseReference[] {
  const doc: unknown = parse(text);
  if (!isObject(doc)) return [];
  const files: string[] = [];
  const mounts: string[] = [];
  for (const entry of Array.isArray(doc.include) ? doc.include : doc.include === undefined ? [] : [doc.include]) {
    files.push(...strings(entry));
    if (isObject(entry)) {
      files.push(...strings(entry.env_file));
      mounts.push(...strings(entry.project_directory));
    }
  }
  for (const key of ['configs', 'secrets']) {
    for (const item of Object.values(isObject(doc[key]) ? doc[key] : {}))
      if (isObject(item)) files.push(...strings(item.file));
  }
  for (const service of Object.values(isObject(doc.services) ? doc.services : {})) {
    if (!isObject(service)) continue;
    if (isObject(service.extends)) files.push(...strings(service.extends.file));
    files.push(...strings(service.env_file));
    for (const volume of Array.isArray(service.volumes) ? service.volumes : []) {
      if (typeof volume === 'string' && /^\.{1,2}(\/|:|$)/.test(volume)) mounts.push(volume.split(':')[0] ?? '');
      else if (isObject(volume) && volume.type === 'bind' && typeof volume.source === 'string')
        mounts.push(volume.source);
    }
  }
  const refs = [
    ...files.map((path) => ({ path, kind: 'file' as const })),
    ...mounts.map((path) => ({ path, kind: 'mount' as const })),
  ];
  return refs.filter(
    (r, i) => isReleasePath(r.path) && refs.findIndex((o) => o.path === r.path && o.kind === r.kind) === i,
  );
}

/** The stack file itself and everything it references must be regular files inside the worktree. */
export async function assertStackFiles(worktree: string, file: string, text: string): Promise<void> {
  const from = dirname(file);
  const where = relative(worktree, file);
  await assertReleasePath(worktree, from, file, 'file', where);
  let refs: ReleaseReference[];
  try {
    refs = stackFileReferences(text);
  } catch (cause) {
    throw new ApplyError('render', `Cannot read ${where}: ${(cause as Error).message}`, { cause });
  }
  for (const ref of refs)
    await assertReleasePath(worktree, from, ref.path, ref.kind, `${where} (references "${ref.path}")`);
}
