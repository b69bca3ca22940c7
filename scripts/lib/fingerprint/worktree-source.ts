import { lstatSync, readFileSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gitWorktreeState } from './git-worktree-snapshot.ts';
import type { GitWorktreeSnapshot, SnapshotVia } from './git-worktree-snapshot.ts';
import { reportsUnder } from './status-records.ts';
import { isLocalStatePath } from './local-state.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { gitMayConvert, listDisk, listGitWorktree } from './worktree-listing.ts';
import { worktreeContentKeys } from './worktree-content-keys.ts';
import type { SourceEntry, TreeSource } from './tree-source.ts';

const isAttributesFile = (path: string) => path === '.gitattributes' || path.endsWith('/.gitattributes');

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
  const state = await gitWorktreeState(root, via);
  // Parsed on first use: a warm run on a clean tree is answered by quickContentKey alone.
  let whole: GitWorktreeSnapshot | undefined;
  let keys: ((prefixes: readonly string[]) => string | undefined) | undefined;
  const full = async () => (whole ??= await state.snapshot());
  // Blob ids git vouched for, by the entry objects list() returned; any other entry is simply read from disk.
  const vouchedOid = new WeakMap<SourceEntry, string>();
  const oidOf = (entry: SourceEntry) => vouchedOid.get(entry);
  let unproven = false;
  const attributes = new Map<string, boolean>();
  const { quick } = state;
  const reported = quick?.reported.filter((path) => !isLocalStatePath(path)) ?? [];
  const staged = new Set(quick?.staged);
  const modified = new Set(quick?.modified);
  /** The index file's checksum with the prefixes, while nothing converts bytes there and hashing proved git right. */
  const indexFileKey = (prefixes: readonly string[]): string | undefined => {
    if (unproven || quick === undefined || quick.errors !== '' || gitMayConvert(quick, root, prefixes, attributes))
      return undefined;
    const named = [...new Set(prefixes)].sort().join('\n');
    return `git-index-file:${createHash('sha256').update(`${quick.indexChecksum}\n${named}`).digest('hex')}`;
  };
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
    quickContentKey(prefixes) {
      // Clean there (git status reports nothing under these paths, not even a staged change) and byte-exact: the
      // index file names every file under them, and its checksum names the index.
      const key = indexFileKey(prefixes);
      return key === undefined || reportsUnder(reported, prefixes) ? undefined : key;
    },
    changedBytesUnder(prefixes) {
      const key = indexFileKey(prefixes);
      if (key === undefined) return undefined;
      // A path staged and untouched since holds the index's bytes, as it did when the lines were saved.
      const changed = reported.filter((path) => !staged.has(path) && reportsUnder([path], prefixes));
      // New bytes at known paths only; a changed attributes file may change how every other file converts.
      if (!changed.every((path) => modified.has(path) && !isAttributesFile(path))) return undefined;
      return { key, changed };
    },
    async contentKey(prefixes) {
      const snapshot = await full();
      // Clean there (git reports nothing under these paths, not even untracked files) and byte-exact (no filters):
      // the index names every file under them.
      if (unproven || !snapshot.inside || snapshot.errors !== '' || gitMayConvert(snapshot, root, prefixes, attributes))
        return undefined;
      keys ??= worktreeContentKeys(snapshot);
      return keys(prefixes);
    },
    async list(prefixes, refuseNested = prefixes) {
      const snapshot = await full();
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
      // The files to read go straight into one table (a buffer of paths, typed arrays): no object per file.
      const [{ DiskFileTableBuilder, FILE_PROVE, FILE_SYMLINK }, { hashDiskTable }, { digestHex, SHA256_BYTES }] =
        await Promise.all([
          import('./disk-file-table.ts'),
          import('./hash-disk-files.ts'),
          import('./file-digests.ts'),
        ]);
      const table = new DiskFileTableBuilder();
      const rowEntry: number[] = [];
      const rowStat = new Map<number, BigIntStats>();
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
          table.add(entry.path, undefined, (entry.mode === '120000' ? FILE_SYMLINK : 0) | FILE_PROVE);
          rowEntry.push(index);
          return;
        }
        const stat = lstatBig(root, entry.path);
        const hit = stats?.lookup(entry.path, stat);
        if (hit !== undefined) {
          result[index] = hit;
          return;
        }
        rowStat.set(table.add(entry.path, Number(stat.size), stat.isSymbolicLink() ? FILE_SYMLINK : 0), stat);
        rowEntry.push(index);
      });
      const stamp = rowStat.size > 0 && stats ? await stats.stamp().catch(() => 0n) : 0n;
      // The quick state's stamp is the snapshot's: a save answered from saved lines parses no index.
      const stampNs = quick !== undefined ? quick.stampNs : (await full()).stampNs;
      const digests = await hashDiskTable(root, table.build(stampNs), progress);
      rowEntry.forEach((index, row) => {
        result[index] = digestHex(digests, row);
        const oid = oids[index];
        if (oid !== undefined && digests.proven[row] === 1) blobs?.setBytes(oid, digests.sha256, row * SHA256_BYTES);
        else if (oid !== undefined) unproven = true; // changed after git looked: the index no longer names these bytes
        const stat = rowStat.get(row);
        if (stat !== undefined && stamp > 0n)
          stats?.recordBytes(entries[index]!.path, stat, digests.sha256, row * SHA256_BYTES, stamp);
      });
      // Caches that cannot be written only cost time on the next run.
      await Promise.all([blobs?.save().catch(() => {}), stats?.save().catch(() => {})]);
      return result;
    },
  };
}
