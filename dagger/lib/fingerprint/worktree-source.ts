import { lstatSync, readFileSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { gitSnapshot } from './git-worktree-snapshot.ts';
import type { SnapshotVia } from './git-worktree-snapshot.ts';
import type { DiskFile } from './hash-disk-files.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { gitMayConvert, listDisk, listGitWorktree } from './worktree-listing.ts';
import { worktreeContentKeys } from './worktree-content-keys.ts';
import type { SourceEntry, TreeSource } from './tree-source.ts';

interface Pending {
  readonly index: number;
  readonly file: DiskFile;
  /** Tracked and unmodified: the blob id git listed. */
  readonly oid?: string;
  /** Anything else: the stat to remember the hash under. */
  readonly stat?: BigIntStats;
}

function lstatBig(root: string, path: string): BigIntStats {
  try {
    return lstatSync(join(root, path), { bigint: true });
  } catch (cause) {
    throw new FingerprintError('read-failed', `Cannot read "${path}": it changed while it was being fingerprinted`, {
      cause,
      details: { path },
    });
  }
}

/**
 * The working tree as `git add -A` would stage it (or every file, outside git). Unmodified
 * tracked files take their hash from the blob cache; every other file from the stat cache,
 * read again only when its stat changed or it was racily clean.
 */
export async function openWorktreeSource(root: string, via: SnapshotVia = 'auto'): Promise<TreeSource> {
  const snapshot = await gitSnapshot(root, via);
  // Blob ids git vouched for, by the entry objects list() returned; any other entry is simply read from disk.
  const vouchedOid = new WeakMap<SourceEntry, string>();
  const oidOf = (entry: SourceEntry) => vouchedOid.get(entry);
  let unproven = false;
  const keyOf = worktreeContentKeys(snapshot);
  const attributes = new Map<string, boolean>();
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
    async contentKey(prefixes) {
      // Clean there (git reports nothing under these paths, not even untracked files) and byte-exact (no filters):
      // the index names every file under them.
      if (unproven || !snapshot.inside || snapshot.errors !== '' || gitMayConvert(snapshot, root, prefixes, attributes))
        return undefined;
      return keyOf(prefixes);
    },
    async list(prefixes, refuseNested = prefixes) {
      const files = snapshot.inside
        ? listGitWorktree(snapshot, root, prefixes, !gitMayConvert(snapshot, root, prefixes, attributes), refuseNested)
        : listDisk(root, prefixes);
      for (const file of files) if (file.oid !== undefined) vouchedOid.set(file, file.oid);
      return files;
    },
    async hash(entries, progress) {
      const result = new Array<string>(entries.length);
      const oids = entries.map(oidOf);
      const vouched = oids.some((oid) => oid !== undefined);
      // Loaded on a miss only: a warm run answered from the result cache never hashes.
      const blobs = vouched ? await (await import('./blob-cache.ts')).openBlobCache(root) : undefined;
      const unvouched = oids.some((oid) => oid === undefined);
      const stats = unvouched ? await (await import('./stat-cache.ts')).openStatCache(root) : undefined;
      const toRead: Pending[] = [];
      entries.forEach((entry, index) => {
        const oid = oids[index];
        const known = oid === undefined ? undefined : blobs?.get(oid);
        if (known !== undefined) {
          result[index] = known;
          return;
        }
        if (oid !== undefined) {
          // Git vouches the disk bytes are this blob: reading them beats inflating it, and the reader proves
          // it with one fstat (git's racy-clean rule against the stamp taken before git looked).
          const proveBlob = { oid, stampNs: snapshot.stampNs?.toString() };
          toRead.push({
            index,
            oid,
            file: { path: entry.path, size: undefined, symlink: entry.mode === '120000', proveBlob },
          });
          return;
        }
        const stat = lstatBig(root, entry.path);
        const file = { path: entry.path, size: Number(stat.size), symlink: stat.isSymbolicLink() };
        const hit = stats?.lookup(entry.path, stat);
        if (hit !== undefined) result[index] = hit;
        else toRead.push({ index, stat, file });
      });
      const stamp = toRead.some((t) => t.stat) && stats ? await stats.stamp().catch(() => 0n) : 0n;
      const { hashDiskFiles } = await import('./hash-disk-files.ts');
      const digests = await hashDiskFiles(
        root,
        toRead.map((t) => t.file),
        progress,
      );
      toRead.forEach((t, k) => {
        const digest = digests[k];
        if (digest === undefined) return;
        result[t.index] = digest.sha256;
        if (t.oid !== undefined && digest.proven === true) blobs?.set(t.oid, digest.sha256);
        else if (t.oid !== undefined) unproven = true; // changed after git looked: the index no longer names these bytes
        if (t.stat !== undefined && stamp > 0n) stats?.record(t.file.path, t.stat, digest.sha256, stamp);
      });
      // Caches that cannot be written only cost time on the next run.
      await Promise.all([blobs?.save().catch(() => {}), stats?.save().catch(() => {})]);
      return result;
    },
  };
}
