import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { writeCacheFile } from './write-cache-file.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

// Binary: magic, oid width, then fixed records (oid bytes, sha256 bytes), then a SHA-256 of all before it.
const MAGIC = Buffer.from('pharos-blob-sha256/2\n');
const SHA_BYTES = 32;

/** Git blob id -> SHA-256 of its content; a blob's content never changes, so entries never go stale. */
export interface BlobCache {
  get(oid: string): string | undefined;
  set(oid: string, sha256: string): void;
  save(): Promise<void>;
}

/** Reads the cache; anything truncated, altered or of another format reads as empty, never as trusted. */
function decode(data: Buffer): Map<string, string> {
  const map = new Map<string, string>();
  if (data.length < MAGIC.length + 1 + SHA_BYTES || !data.subarray(0, MAGIC.length).equals(MAGIC)) return map;
  const body = data.subarray(0, data.length - SHA_BYTES);
  if (
    !createHash('sha256')
      .update(body)
      .digest()
      .equals(data.subarray(data.length - SHA_BYTES))
  )
    return map;
  const width = body[MAGIC.length] ?? 0;
  const record = width + SHA_BYTES;
  const start = MAGIC.length + 1;
  if ((width !== 20 && width !== 32) || (body.length - start) % record !== 0) return map;
  for (let at = start; at < body.length; at += record) {
    map.set(body.toString('hex', at, at + width), body.toString('hex', at + width, at + record));
  }
  return map;
}

function encode(map: Map<string, string>): Buffer {
  const width = (map.keys().next().value ?? '').length / 2 || 20;
  const start = MAGIC.length + 1;
  // One allocation for every record: a Buffer per oid and digest would be 100,000 small objects on a large tree.
  const out = Buffer.allocUnsafe(start + map.size * (width + SHA_BYTES) + SHA_BYTES);
  MAGIC.copy(out, 0);
  out[MAGIC.length] = width;
  let at = start;
  for (const [oid, sha] of map) {
    if (oid.length !== width * 2) continue;
    at += out.write(oid, at, 'hex');
    at += out.write(sha, at, 'hex');
  }
  createHash('sha256').update(out.subarray(0, at)).digest().copy(out, at);
  return out.subarray(0, at + SHA_BYTES);
}

export async function openBlobCache(root: string): Promise<BlobCache> {
  const file = join(root, LOCAL_DIR, 'fingerprint', 'blobs.bin');
  const map = await readFile(file).then(decode, () => new Map<string, string>());
  let dirty = false;
  return {
    get: (oid) => map.get(oid),
    set: (oid, sha) => {
      if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid) || !/^[0-9a-f]{64}$/.test(sha) || map.get(oid) === sha) return;
      map.set(oid, sha);
      dirty = true;
    },
    save: async () => {
      if (!dirty) return;
      await ensureLocalDir(root, 'fingerprint');
      await writeCacheFile(file, encode(map));
      dirty = false;
    },
  };
}
