import { gitPrefix, readGitBlobs } from '../fingerprint/git-tree-source.ts';
import type { TreeSource } from '../fingerprint/tree-source.ts';
import { gitPort } from '../ports/git.ts';

/** Every blob of a commit in one `git cat-file --batch` round, instead of one process per file. */
async function readBlobs(source: TreeSource, paths: readonly string[]): Promise<Map<string, string>> {
  const git = gitPort(source.root);
  const prefix = await gitPrefix(git);
  const blobs = await readGitBlobs(
    git,
    paths.map((p) => `${source.id}:${prefix}${p}`),
  );
  const out = new Map<string, string>();
  paths.forEach((p, i) => {
    const blob = blobs[i];
    if (blob !== undefined) out.set(p, blob.toString('utf8'));
  });
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
