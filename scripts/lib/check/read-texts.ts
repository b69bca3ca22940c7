import { gitPrefix } from '../fingerprint/git-tree-source.ts';
import { FingerprintError } from '../fingerprint/fingerprint-error.ts';
import type { TreeSource } from '../fingerprint/tree-source.ts';
import { gitPort } from '../ports/git.ts';

/** Every blob of a commit in one `git cat-file --batch` round, instead of one process per file. */
async function readBlobs(source: TreeSource, all: readonly string[]): Promise<Map<string, string>> {
  const paths = all.filter((p) => !p.includes('\n')); // a newline would break cat-file's line protocol
  const git = gitPort(source.root);
  const prefix = await gitPrefix(git);
  const result = await git.run(['cat-file', '--batch'], paths.map((p) => `${source.id}:${prefix}${p}\n`).join(''));
  if (result.code !== 0) throw new FingerprintError('git-failed', `Cannot read files of ${source.id}: ${result.stderr.trim()}`);
  const out = new Map<string, string>();
  const data = result.stdout;
  let pos = 0;
  for (const path of paths) {
    const nl = data.indexOf(10, pos);
    if (nl < 0) break;
    const [, type, size] = data.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (size === undefined) continue; // "<spec> missing"
    const end = pos + Number(size);
    if (type === 'blob') out.set(path, data.subarray(pos, end).toString('utf8'));
    pos = end + 1;
  }
  return out;
}

/** Text of each path the source holds as a regular file; absent paths are left out. */
export async function readTexts(source: TreeSource, paths: readonly string[]): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  if (source.kind === 'git' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(source.id)) return readBlobs(source, paths);
  const out = new Map<string, string>();
  for (let i = 0; i < paths.length; i += 16) {
    const batch = paths.slice(i, i + 16);
    const texts = await Promise.all(batch.map((p) => source.readFile(p)));
    batch.forEach((p, k) => {
      const bytes = texts[k];
      if (bytes !== undefined) out.set(p, bytes.toString('utf8'));
    });
  }
  return out;
}
