import { join } from 'node:path';
import type { BigIntStats } from 'node:fs';
import { readSealed, writeSealed } from './checksummed-file.ts';
import { ensureLocalDir, fsStampSync, LOCAL_DIR } from './local-state.ts';
import { StatTable } from './stat-table.ts';

// Binary: magic, then the table's parts (see StatTable), then a SHA-256 of all before it.
const MAGIC = Buffer.from('pharos-stat-cache/2\n');

export interface StatCache {
  /** The file's hash when its stat is unchanged and it was not racily clean when hashed. */
  lookup(path: string, stat: BigIntStats): string | undefined;
  record(path: string, stat: BigIntStats, sha256: string, stampNs: bigint): void;
  /** `record` with the digest as bytes: `sha256[at, at + 32)`. */
  recordBytes(path: string, stat: BigIntStats, sha256: Uint8Array, at: number, stampNs: bigint): void;
  /** The filesystem's own clock now (a fresh file's mtime), taken before files are read. */
  stamp(): Promise<bigint>;
  save(): Promise<void>;
}

export async function openStatCache(root: string): Promise<StatCache> {
  const file = join(root, LOCAL_DIR, 'fingerprint', 'stat-cache.bin');
  // Anything truncated, altered, of another format or not a regular file reads as empty, never as trusted.
  const body = await readSealed(file, MAGIC);
  const table = (body === undefined ? undefined : StatTable.decode(body)) ?? new StatTable();
  const digest = Buffer.alloc(32);
  let dirty = false;
  return {
    lookup: (path, stat) => table.lookup(path, stat),
    recordBytes(path, stat, sha256, at, stampNs) {
      table.record(path, stat, sha256.subarray(at, at + 32), stampNs);
      dirty = true;
    },
    record(path, stat, sha256, stampNs) {
      if (sha256.length !== 64 || digest.write(sha256, 'hex') !== 32) return;
      table.record(path, stat, digest, stampNs);
      dirty = true;
    },
    async stamp() {
      const stamp = fsStampSync(root);
      if (stamp === undefined) throw new Error('no writable .local/');
      return stamp;
    },
    async save() {
      if (!dirty) return;
      await ensureLocalDir(root, 'fingerprint');
      await writeSealed(file, MAGIC, table.encode());
      dirty = false;
    },
  };
}
