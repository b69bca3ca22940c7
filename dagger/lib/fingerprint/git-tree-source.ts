import type { Git } from '../ports/git.ts';
import { gitPort } from '../ports/git.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { openBlobCache } from './blob-cache.ts';
import { hashBlobs } from './cat-file-hashes.ts';
import { compareBytewise } from '../catalogue/compare-bytewise.ts';
import { modeFromGit } from './file-mode.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { isLocalStatePath } from './local-state.ts';
import type { SourceEntry, TreeSource } from './tree-source.ts';

/** The folder's path inside its repository (`` at the top, else `sub/dir/`), or an error when it is not in one. */
export async function gitPrefix(git: Git): Promise<string> {
  const result = await git.run(['rev-parse', '--show-prefix']);
  if (result.code !== 0) {
    throw new FingerprintError('not-a-git-repo', `Cannot read commits of "${git.dir}": not a git repository`, {
      details: { repo: git.dir, stderr: result.stderr.trim() },
    });
  }
  return result.stdout.toString('utf8').trim();
}

export async function resolveCommit(git: Git, rev: string): Promise<string> {
  const result = await git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  const commit = result.stdout.toString('utf8').trim();
  if (result.code !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) {
    throw new FingerprintError('unknown-revision', `Cannot resolve revision "${rev}" in "${git.dir}": no such commit`, {
      details: { repo: git.dir, rev },
    });
  }
  return commit;
}

/**
 * Reads objects through one `cat-file --batch`, so "missing" and "not a blob" are answers (undefined),
 * not errors. A spec with a newline cannot cross the line protocol and reads as missing.
 */
export async function readGitBlobs(git: Git, specs: readonly string[]): Promise<(Buffer | undefined)[]> {
  const asked = specs.filter((spec) => !/[\n\r]/.test(spec));
  if (asked.length === 0) return specs.map(() => undefined);
  const result = await git.run(['cat-file', '--batch'], asked.map((spec) => `${spec}\n`).join(''));
  if (result.code !== 0) throw new FingerprintError('git-failed', `Cannot read "${asked[0]}": ${result.stderr.trim()}`);
  const data = result.stdout;
  const answers = new Map<string, Buffer | undefined>();
  let pos = 0;
  for (const spec of asked) {
    const nl = data.indexOf(10, pos);
    if (nl < 0) break;
    const [, type, size] = data.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (size === undefined) continue; // "<spec> missing"
    const end = pos + Number(size);
    if (type === 'blob') answers.set(spec, data.subarray(pos, end));
    pos = end + 1;
  }
  return specs.map((spec) => answers.get(spec));
}

export async function readGitBlob(git: Git, spec: string): Promise<Buffer | undefined> {
  const [blob] = await readGitBlobs(git, [spec]);
  return blob;
}

/** A commit's tree as a source: blobs hashed once, then remembered by blob id under `.local/`. */
export async function openGitTreeSource(root: string, rev: string): Promise<TreeSource> {
  const git = gitPort(root);
  const prefix = await gitPrefix(git);
  const commit = await resolveCommit(git, rev);
  const treeish = `${commit}:${prefix}`;
  const oids = new Map<string, string>();
  let treeKey: Promise<string | undefined> | undefined;
  return {
    kind: 'git',
    id: commit,
    root,
    readFile: (path) => readGitBlob(git, `${treeish}${path}`),
    contentKey() {
      // One tree id for every image: asked once per source.
      treeKey ??= git
        .run(['rev-parse', '--verify', '--quiet', treeish])
        .then((tree) => (tree.code === 0 ? `git-tree:${tree.stdout.toString('utf8').trim()}` : undefined));
      return treeKey;
    },
    async list(prefixes, refuseNested = prefixes) {
      const specs = prefixes.includes('.') ? [] : [...new Set(prefixes)];
      const result = await git.run(['ls-tree', '-r', '-z', '--full-tree', treeish, '--', ...specs]);
      if (result.code !== 0) {
        throw new FingerprintError(
          'git-failed',
          `Cannot list the tree of "${commit}" in "${root}": ${result.stderr.trim()}`,
        );
      }
      const entries: SourceEntry[] = [];
      for (const record of result.stdout.toString('utf8').split('\0')) {
        if (record === '') continue;
        const tab = record.indexOf('\t');
        const [gitMode, , oid] = record.slice(0, tab).split(' ');
        const path = record.slice(tab + 1);
        if (isLocalStatePath(path) || !prefixes.some((p) => isAtOrUnder(path, p))) continue;
        if (gitMode === '160000') {
          if (!refuseNested.some((p) => isAtOrUnder(path, p) || isAtOrUnder(p, path))) continue;
          throw new FingerprintError(
            'submodule',
            `Cannot fingerprint "${path}" at ${commit}: submodules are not supported as image inputs`,
            {
              details: { path, commit },
            },
          );
        }
        const mode = gitMode === undefined ? undefined : modeFromGit(gitMode);
        if (mode === undefined || oid === undefined) continue;
        oids.set(path, oid);
        entries.push({ path, mode });
      }
      return entries.sort((a, b) => compareBytewise(a.path, b.path));
    },
    async hash(entries, progress) {
      const cache = await openBlobCache(root);
      const wanted = entries.map((e) => {
        const oid = oids.get(e.path);
        if (oid === undefined)
          throw new FingerprintError('read-failed', `Cannot hash "${e.path}": it was not listed from ${commit}`);
        return oid;
      });
      const missing = wanted.filter((oid) => cache.get(oid) === undefined);
      const total = { files: missing.length, bytes: 0 };
      const done = { files: 0, bytes: 0 };
      const fresh = await hashBlobs(git, missing, (bytes) => {
        done.files++;
        done.bytes += bytes;
        if (progress && done.files % 1000 === 0) progress(done, total);
      });
      for (const [oid, sha] of fresh) cache.set(oid, sha);
      await cache.save().catch(() => {}); // a cache that cannot be written only costs time
      return wanted.map((oid) => cache.get(oid) ?? '');
    },
  };
}
