import { join } from 'node:path';
import { readChecksummed, writeChecksummed } from './checksummed-file.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

const FORMAT = 'pharos-blob-sha256/1';
const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const SHA = /^[0-9a-f]{64}$/;

/** Git blob id -> SHA-256 of its content; a blob's content never changes, so entries never go stale. */
export interface BlobCache {
  get(oid: string): string | undefined;
  set(oid: string, sha256: string): void;
  save(): Promise<void>;
}

export async function openBlobCache(root: string): Promise<BlobCache> {
  const file = join(root, LOCAL_DIR, 'fingerprint', 'blobs.json');
  const map = new Map<string, string>();
  const body = await readChecksummed(file, FORMAT);
  if (body !== undefined) {
    try {
      const data: unknown = JSON.parse(body);
      if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
        for (const [oid, sha] of Object.entries(data)) {
          if (!OID.test(oid) || typeof sha !== 'string' || !SHA.test(sha)) {
            map.clear();
            break;
          }
          map.set(oid, sha);
        }
      }
    } catch {
      map.clear();
    }
  }
  let dirty = false;
  return {
    get: (oid) => map.get(oid),
    set: (oid, sha) => {
      if (map.get(oid) !== sha) {
        map.set(oid, sha);
        dirty = true;
      }
    },
    save: async () => {
      if (!dirty) return;
      await ensureLocalDir(root, 'fingerprint');
      await writeChecksummed(file, FORMAT, JSON.stringify(Object.fromEntries(map)));
      dirty = false;
    },
  };
}
