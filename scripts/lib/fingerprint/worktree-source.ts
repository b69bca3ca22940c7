import { lstatSync, readFileSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { gitPort } from '../ports/git.ts';
import { openBlobCache } from './blob-cache.ts';
import { hashBlobs } from './cat-file-hashes.ts';
import { hashDiskFiles } from './hash-disk-files.ts';
import type { DiskFile } from './hash-disk-files.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { openStatCache } from './stat-cache.ts';
import { gitMayConvert, listDisk, listGitWorktree } from './worktree-listing.ts';
import type { ListedFile } from './worktree-listing.ts';
import type { TreeSource } from './tree-source.ts';

function lstatBig(root: string, path: string): BigIntStats {
  try {
    return lstatSync(join(root, path), { bigint: true });
  } catch (cause) {
    throw new FingerprintError('read-failed', `Cannot read "${path}": it changed while it was being fingerprinted`, { cause, details: { path } });
  }
}

/**
 * The working tree as `git add -A` would stage it (or every file, outside git). Unmodified
 * tracked files take their hash from the blob cache; every other file from the stat cache,
 * read again only when its stat changed or it was racily clean.
 */
export async function openWorktreeSource(root: string): Promise<TreeSource> {
  const git = gitPort(root);
  const inGit = (await git.run(['rev-parse', '--is-inside-work-tree'])).stdout.toString('utf8').trim() === 'true';
  const listed = new Map<string, ListedFile>();
  return {
    kind: 'worktree',
    id: 'worktree',
    root,
    async readFile(path) {
      try {
        const stat = lstatSync(join(root, path));
        return stat.isFile() ? readFileSync(join(root, path)) : undefined;
      } catch {
        return undefined;
      }
    },
    async list(prefixes) {
      const files = inGit ? await listGitWorktree(git, root, prefixes, !(await gitMayConvert(git, root, prefixes))) : listDisk(root, prefixes);
      for (const file of files) listed.set(file.path, file);
      return files.map(({ path, mode }) => ({ path, mode }));
    },
    async hash(entries, progress) {
      const result = new Array<string>(entries.length);
      const byOid: number[] = [];
      const onDisk: number[] = [];
      entries.forEach((entry, i) => {
        if (listed.get(entry.path)?.oid !== undefined) byOid.push(i);
        else onDisk.push(i);
      });
      if (byOid.length > 0) {
        const blobs = await openBlobCache(root);
        const oidOf = (i: number) => listed.get(entries[i]?.path ?? '')?.oid ?? '';
        const missing = byOid.map(oidOf).filter((oid) => blobs.get(oid) === undefined);
        for (const [oid, sha] of await hashBlobs(git, missing)) blobs.set(oid, sha);
        for (const i of byOid) result[i] = blobs.get(oidOf(i)) ?? '';
        await blobs.save().catch(() => {}); // an unwritable cache only costs time
      }
      if (onDisk.length > 0) {
        const cache = await openStatCache(root);
        const stamp = await cache.stamp().catch(() => 0n);
        const toRead: { index: number; stat: BigIntStats; file: DiskFile }[] = [];
        for (const i of onDisk) {
          const entry = entries[i];
          if (entry === undefined) continue;
          const stat = lstatBig(root, entry.path);
          const hit = cache.lookup(entry.path, stat);
          if (hit !== undefined) result[i] = hit;
          else toRead.push({ index: i, stat, file: { path: entry.path, size: Number(stat.size), symlink: stat.isSymbolicLink() } });
        }
        const hashes = await hashDiskFiles(root, toRead.map((t) => t.file), progress);
        toRead.forEach((t, k) => {
          const sha = hashes[k] ?? '';
          result[t.index] = sha;
          if (stamp > 0n) cache.record(t.file.path, t.stat, sha, stamp);
        });
        await cache.save().catch(() => {});
      }
      return result;
    },
  };
}
