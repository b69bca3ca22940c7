import { join } from 'node:path';
import { readSealed, writeSealed } from './checksummed-file.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

// Binary: magic, oid width, then fixed records (oid bytes, sha256 bytes), then a SHA-256 of all before it.
const MAGIC = Buffer.from('pharos-blob-sha256/2\n');
const SHA_BYTES = 32;
// Hex digit values by character code, -1 for anything else: blob ids are decoded without a call per id.
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) HEX['0123456789abcdef'.charCodeAt(c)] = c;

/** Git blob id -> SHA-256 of its content; a blob's content never changes, so entries never go stale. */
export interface BlobCache {
  get(oid: string): string | undefined;
  set(oid: string, sha256: string): void;
  /** `set` with the digest as bytes: `sha256[at, at + 32)`. */
  setBytes(oid: string, sha256: Uint8Array, at: number): void;
  save(): Promise<void>;
}

/**
 * The records as the file holds them, end to end in one buffer, with an open-addressing index of record numbers:
 * nothing per entry on the heap, and a lookup decodes only the digest it returns. Blob ids are hashes already, so
 * their first four bytes pick the slot.
 */
export class BlobTable {
  readonly width: number;
  #records: Buffer;
  #count = 0;
  #slots = new Int32Array(16); // record number + 1; 0 is empty
  #key = Buffer.alloc(32);

  /** `records` (whole `width + 32`-byte records) is used in place until the first new entry; repeats are skipped. */
  constructor(width: number, records: Buffer = Buffer.alloc(0)) {
    this.width = width;
    this.#records = records;
    const record = width + SHA_BYTES;
    const n = Math.floor(records.length / record);
    this.#resize(n);
    for (let r = 0; r < n; r++) {
      if (this.#indexAt(records, r * record) >= 0) continue;
      if (r !== this.#count) records.copy(records, this.#count * record, r * record, (r + 1) * record);
      this.#insert(this.#count++);
    }
  }

  get size(): number {
    return this.#count;
  }

  /** The records in use, end to end (what the file stores). */
  records(): Buffer {
    return this.#records.subarray(0, this.#count * (this.width + SHA_BYTES));
  }

  get(oid: string): string | undefined {
    const r = this.#keyOf(oid) ? this.#find() : -1;
    if (r < 0) return undefined;
    const at = r * (this.width + SHA_BYTES) + this.width;
    return this.#records.toString('hex', at, at + SHA_BYTES);
  }

  /** Adds or replaces the entry of `oid` with `sha256[at, at + 32)`; true when the table changed. */
  set(oid: string, sha256: Uint8Array, at = 0): boolean {
    if (!this.#keyOf(oid) || sha256.length < at + SHA_BYTES) return false;
    const record = this.width + SHA_BYTES;
    let r = this.#find();
    if (r >= 0) {
      const from = r * record + this.width;
      let i = 0;
      while (i < SHA_BYTES && this.#records[from + i] === sha256[at + i]) i++;
      if (i === SHA_BYTES) return false;
    } else {
      r = this.#count;
      if ((r + 1) * record > this.#records.length) {
        const grown = Buffer.allocUnsafe(Math.max(64 * record, this.#records.length * 2));
        this.#records.copy(grown, 0, 0, r * record);
        this.#records = grown;
      }
      for (let i = 0; i < this.width; i++) this.#records[r * record + i] = this.#key[i] ?? 0;
      this.#count++;
      if (!this.#resize(this.#count)) this.#insert(r);
    }
    const to = r * record + this.width;
    for (let i = 0; i < SHA_BYTES; i++) this.#records[to + i] = sha256[at + i] ?? 0;
    return true;
  }

  /** Puts the bytes of `oid` in the key buffer; false when it is not a lowercase hex blob id of this width. */
  #keyOf(oid: string): boolean {
    if (oid.length !== this.width * 2) return false;
    const key = this.#key;
    for (let i = 0; i < this.width; i++) {
      const hi = HEX[oid.charCodeAt(2 * i)] ?? -1;
      const lo = HEX[oid.charCodeAt(2 * i + 1)] ?? -1;
      if (hi < 0 || lo < 0) return false;
      key[i] = (hi << 4) | lo;
    }
    return true;
  }

  /** The record number of the key buffer's blob id, or -1. */
  #find(): number {
    return this.#indexAt(this.#key, 0);
  }

  /** The record number of the blob id at `source[at, at + width)`, or -1 (compared in place: no copy per record). */
  #indexAt(source: Buffer, at: number): number {
    const width = this.width;
    const mask = this.#slots.length - 1;
    const record = width + SHA_BYTES;
    const records = this.#records;
    for (let s = source.readUInt32LE(at) & mask; ; s = (s + 1) & mask) {
      const slot = this.#slots[s] ?? 0;
      if (slot === 0) return -1;
      const from = (slot - 1) * record;
      let i = 0;
      while (i < width && records[from + i] === source[at + i]) i++;
      if (i === width) return slot - 1;
    }
  }

  #insert(r: number): void {
    const mask = this.#slots.length - 1;
    let s = this.#records.readUInt32LE(r * (this.width + SHA_BYTES)) & mask;
    while ((this.#slots[s] ?? 0) !== 0) s = (s + 1) & mask;
    this.#slots[s] = r + 1;
  }

  /** Keeps the index at most half full for `n` records; true when it was rebuilt (every record indexed). */
  #resize(n: number): boolean {
    if (n * 2 <= this.#slots.length) return false;
    let size = this.#slots.length;
    while (n * 2 > size) size *= 2;
    this.#slots = new Int32Array(size);
    for (let r = 0; r < this.#count; r++) this.#insert(r);
    return true;
  }
}

/** The table a sealed body holds: the oid width, then whole records; anything else reads as empty. */
function decode(body: Buffer | undefined): BlobTable | undefined {
  const width = body?.[0];
  if (body === undefined || (width !== 20 && width !== 32) || (body.length - 1) % (width + SHA_BYTES) !== 0)
    return undefined;
  return new BlobTable(width, body.subarray(1));
}

/** Bytes of a blob id in hex: 20 (SHA-1) or 32 (SHA-256), else 0. */
const widthOf = (oid: string) => (oid.length === 40 ? 20 : oid.length === 64 ? 32 : 0);

export async function openBlobCache(root: string): Promise<BlobCache> {
  const file = join(root, LOCAL_DIR, 'fingerprint', 'blobs.bin');
  // Anything truncated, altered, of another format or not a regular file reads as empty, never as trusted.
  let table = decode(await readSealed(file, MAGIC));
  let dirty = false;
  const digest = Buffer.alloc(SHA_BYTES);
  const setBytes = (oid: string, sha256: Uint8Array, at: number) => {
    const width = widthOf(oid);
    if (width === 0) return;
    // A repository has one object format: a blob id of the other width starts the table over.
    if (table?.width !== width) table = new BlobTable(width);
    if (table.set(oid, sha256, at)) dirty = true;
  };
  return {
    get: (oid) => table?.get(oid),
    setBytes,
    set: (oid, sha) => {
      if (sha.length === SHA_BYTES * 2 && digest.write(sha, 'hex') === SHA_BYTES) setBytes(oid, digest, 0);
    },
    save: async () => {
      if (!dirty || table === undefined) return;
      await ensureLocalDir(root, 'fingerprint');
      await writeSealed(file, MAGIC, [Buffer.of(table.width), table.records()]);
      dirty = false;
    },
  };
}
