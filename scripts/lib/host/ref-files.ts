import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const OID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The refs under `prefixes` of a repository with git's files ref store (`packed-refs` plus loose files, a loose one
 * winning), as `git for-each-ref` lists them, symbolic refs left out. Undefined when the store is not plain files
 * (reftable, a loose ref that is neither an id nor a symref): the caller asks git instead.
 */
export async function readRefFiles(
  gitDir: string,
  prefixes: readonly string[],
): Promise<Map<string, string> | undefined> {
  const entries = new Set(await readdir(gitDir).catch(() => [] as string[]));
  if (entries.has('reftable') || !entries.has('refs')) return undefined;
  const refs = new Map<string, string>();
  const packed = await readFile(join(gitDir, 'packed-refs'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  for (const line of packed.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    const oid = line.slice(0, space);
    const name = line.slice(space + 1);
    if (space < 0 || !OID.test(oid)) return undefined;
    if (prefixes.some((p) => name.startsWith(`${p}/`))) refs.set(name, oid);
  }
  for (const prefix of prefixes) if (!(await readLoose(gitDir, prefix, refs))) return undefined;
  return new Map([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function readLoose(gitDir: string, name: string, refs: Map<string, string>): Promise<boolean> {
  const entries = await readdir(join(gitDir, name), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
    throw error;
  });
  for (const entry of entries) {
    const ref = `${name}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(await readLoose(gitDir, ref, refs))) return false;
      continue;
    }
    // git's own lock files while a ref is being written.
    if (!entry.isFile() || entry.name.endsWith('.lock')) continue;
    const text = (await readFile(join(gitDir, ref), 'utf8')).trim();
    if (text.startsWith('ref: ')) {
      refs.delete(ref);
      continue;
    }
    if (!OID.test(text)) return false;
    refs.set(ref, text);
  }
  return true;
}
