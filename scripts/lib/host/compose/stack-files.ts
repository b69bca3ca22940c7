import { lstat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { ApplyError } from '../apply-error.ts';

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

/**
 * `path` (absolute, or relative to `from`) lies inside `worktree`, and no component of it below the worktree is a
 * symlink; the last one is a regular file (`file`) or a file or folder (`mount`). Reads only metadata.
 */
export async function assertReleasePath(
  worktree: string,
  from: string,
  path: string,
  what: 'file' | 'mount',
  where: string,
): Promise<void> {
  const full = resolve(from, path);
  const inside = relative(worktree, full);
  if (inside === '' && what === 'file')
    throw new ApplyError('render', `Cannot use ${where}: "${path}" is the release folder itself, not a file`);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new ApplyError('render', `Cannot use ${where}: "${path}" leads outside the release worktree`, {
      details: { path },
    });
  let current = worktree;
  const parts = inside === '' ? [] : inside.split(sep);
  for (const [index, part] of parts.entries()) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info === undefined)
      throw new ApplyError('render', `Cannot use ${where}: "${path}" does not exist in the release`, {
        details: { path },
      });
    if (info.isSymbolicLink())
      throw new ApplyError(
        'render',
        `Cannot use ${where}: "${relative(worktree, current)}" is a symlink; a host reads only regular files of the signed release`,
        { details: { path } },
      );
    const last = index === parts.length - 1;
    if (last && what === 'file' && !info.isFile())
      throw new ApplyError('render', `Cannot use ${where}: "${path}" is not a regular file`, { details: { path } });
  }
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
