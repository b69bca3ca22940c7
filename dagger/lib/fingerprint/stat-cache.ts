import { join } from 'node:path';
import { statSync, writeFileSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { readChecksummed, writeChecksummed } from './checksummed-file.ts';
import { ensureLocalDir, fsStampSync, LOCAL_DIR } from './local-state.ts';

const FORMAT = 'pharos-stat-cache/1';

/** [size, mtimeNs, ctimeNs, ino, mode, sha256, stampNs] — what git's index keeps, plus when we read it. */
type Row = [string, string, string, string, number, string, string];

export interface StatCache {
  /** The file's hash when its stat is unchanged and it was not racily clean when hashed. */
  lookup(path: string, stat: BigIntStats): string | undefined;
  record(path: string, stat: BigIntStats, sha256: string, stampNs: bigint): void;
  /** The filesystem's own clock now (a fresh file's mtime), taken before files are read. */
  stamp(): Promise<bigint>;
  save(): Promise<void>;
}

function isRow(value: unknown): value is Row {
  return (
    Array.isArray(value) &&
    value.length === 7 &&
    value.every((v, i) => (i === 4 ? Number.isInteger(v) : typeof v === 'string' && /^[0-9a-f]*$/.test(v) && v !== ''))
  );
}

export async function openStatCache(root: string): Promise<StatCache> {
  const dir = join(root, LOCAL_DIR, 'fingerprint');
  const file = join(dir, 'stat-cache.json');
  const rows = new Map<string, Row>();
  const body = await readChecksummed(file, FORMAT);
  if (body !== undefined) {
    try {
      const data: unknown = JSON.parse(body);
      if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
        for (const [path, row] of Object.entries(data)) {
          if (!isRow(row)) {
            rows.clear();
            break;
          }
          rows.set(path, row);
        }
      }
    } catch {
      rows.clear();
    }
  }
  let dirty = false;
  return {
    lookup(path, stat) {
      const row = rows.get(path);
      if (row === undefined) return undefined;
      const [size, mtime, ctime, ino, mode, sha, stampNs] = row;
      if (size !== stat.size.toString() || mtime !== stat.mtimeNs.toString() || ctime !== stat.ctimeNs.toString())
        return undefined;
      if (ino !== stat.ino.toString() || mode !== Number(stat.mode)) return undefined;
      // Racy clean (git's rule): a file modified in the same tick it was read may have changed unseen.
      if (stat.mtimeNs >= BigInt(stampNs) || stat.ctimeNs >= BigInt(stampNs)) return undefined;
      return sha;
    },
    record(path, stat, sha256, stampNs) {
      rows.set(path, [
        stat.size.toString(),
        stat.mtimeNs.toString(),
        stat.ctimeNs.toString(),
        stat.ino.toString(),
        Number(stat.mode),
        sha256,
        stampNs.toString(),
      ]);
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
      await writeChecksummed(file, FORMAT, JSON.stringify(Object.fromEntries(rows)));
      dirty = false;
    },
  };
}
