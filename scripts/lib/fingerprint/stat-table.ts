import type { BigIntStats } from 'node:fs';

// One fixed record per path: size, mtimeNs, ctimeNs, ino, stampNs (8 bytes each), mode, end of the path in the
// path buffer (4 bytes each), then the SHA-256 — what git's index keeps, plus when we read the file.
const SIZE = 0;
const MTIME = 8;
const CTIME = 16;
const INO = 24;
const STAMP = 32;
const MODE = 40;
const PATH_END = 44;
const SHA = 48;
const RECORD = 80;
const HEADER = 8; // record count, path bytes (u32 each)

type Stat = Pick<BigIntStats, 'size' | 'mtimeNs' | 'ctimeNs' | 'ino' | 'mode'>;

/** FNV-1a over the bytes `[start, end)`: paths are not random, so the index hashes them whole. */
function hashBytes(bytes: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  return h >>> 0;
}

/**
 * The stat cache in memory as it is on disk: fixed records in one buffer, the paths end to end in another, and an
 * open-addressing index of record numbers. Nothing per path on the heap; a lookup decodes only what it compares.
 */
export class StatTable {
  #records: Buffer;
  #view: DataView; // of #records: 64-bit fields without a Buffer call each
  #paths: Buffer;
  #count = 0;
  #pathBytes = 0;
  #slots = new Int32Array(16); // record number + 1; 0 is empty
  #key = Buffer.alloc(256);
  #keyLength = 0;

  constructor(records: Buffer = Buffer.alloc(0), paths: Buffer = Buffer.alloc(0), count = 0) {
    this.#records = records;
    this.#view = new DataView(records.buffer, records.byteOffset, records.byteLength);
    this.#paths = paths;
    this.#pathBytes = paths.length;
    this.#count = count;
    if (!this.#resize(count)) for (let r = 0; r < count; r++) this.#insert(r);
  }

  /** The table a cache file's body holds, or undefined when its parts do not fit together. */
  static decode(body: Buffer): StatTable | undefined {
    if (body.length < HEADER) return undefined;
    const count = body.readUInt32LE(0);
    const pathBytes = body.readUInt32LE(4);
    if (body.length !== HEADER + count * RECORD + pathBytes) return undefined;
    const records = body.subarray(HEADER, HEADER + count * RECORD);
    let previous = 0;
    for (let r = 0; r < count; r++) {
      const end = records.readUInt32LE(r * RECORD + PATH_END);
      if (end <= previous || end > pathBytes) return undefined; // no empty path, none out of bounds
      previous = end;
    }
    if (previous !== pathBytes) return undefined;
    return new StatTable(records, body.subarray(HEADER + count * RECORD), count);
  }

  get size(): number {
    return this.#count;
  }

  /** The parts of the cache file's body, in order. */
  encode(): Uint8Array[] {
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(this.#count, 0);
    header.writeUInt32LE(this.#pathBytes, 4);
    return [header, this.#records.subarray(0, this.#count * RECORD), this.#paths.subarray(0, this.#pathBytes)];
  }

  /** The file's hash when its stat is unchanged and it was not racily clean when hashed. */
  lookup(path: string, stat: Stat): string | undefined {
    this.#setKey(path);
    const r = this.#find();
    if (r < 0) return undefined;
    const at = r * RECORD;
    const v = this.#view;
    if (v.getBigUint64(at + SIZE, true) !== stat.size || v.getBigInt64(at + MTIME, true) !== stat.mtimeNs)
      return undefined;
    if (v.getBigInt64(at + CTIME, true) !== stat.ctimeNs || v.getBigUint64(at + INO, true) !== stat.ino)
      return undefined;
    if (v.getUint32(at + MODE, true) !== Number(stat.mode)) return undefined;
    // Racy clean (git's rule): a file modified in the same tick it was read may have changed unseen.
    const stamp = v.getBigInt64(at + STAMP, true);
    if (stat.mtimeNs >= stamp || stat.ctimeNs >= stamp) return undefined;
    return this.#records.toString('hex', at + SHA, at + RECORD);
  }

  /** Remembers `sha256` (32 bytes) for `path` at this stat, read after the filesystem's clock said `stampNs`. */
  record(path: string, stat: Stat, sha256: Uint8Array, stampNs: bigint): void {
    this.#setKey(path);
    let r = this.#find();
    if (r < 0) r = this.#append();
    const at = r * RECORD;
    const v = this.#view;
    v.setBigUint64(at + SIZE, stat.size, true);
    v.setBigInt64(at + MTIME, stat.mtimeNs, true);
    v.setBigInt64(at + CTIME, stat.ctimeNs, true);
    v.setBigUint64(at + INO, stat.ino, true);
    v.setBigInt64(at + STAMP, stampNs, true);
    v.setUint32(at + MODE, Number(stat.mode), true);
    for (let i = 0; i < 32; i++) this.#records[at + SHA + i] = sha256[i] ?? 0;
  }

  /** A new record for the key's path; its other fields are the caller's to write. */
  #append(): number {
    const r = this.#count;
    if ((r + 1) * RECORD > this.#records.length) {
      this.#records = grown(this.#records, (r + 1) * RECORD);
      this.#view = new DataView(this.#records.buffer, this.#records.byteOffset, this.#records.byteLength);
    }
    if (this.#pathBytes + this.#keyLength > this.#paths.length)
      this.#paths = grown(this.#paths, this.#pathBytes + this.#keyLength);
    this.#key.copy(this.#paths, this.#pathBytes, 0, this.#keyLength);
    this.#pathBytes += this.#keyLength;
    this.#view.setUint32(r * RECORD + PATH_END, this.#pathBytes, true);
    this.#count++;
    if (!this.#resize(this.#count)) this.#insert(r);
    return r;
  }

  #setKey(path: string): void {
    if (path.length * 3 > this.#key.length) this.#key = Buffer.alloc(path.length * 3);
    this.#keyLength = this.#key.write(path, 0, 'utf8');
  }

  #pathStart(r: number): number {
    return r === 0 ? 0 : this.#view.getUint32((r - 1) * RECORD + PATH_END, true);
  }

  /** The record number of the key's path, or -1. */
  #find(): number {
    const mask = this.#slots.length - 1;
    const length = this.#keyLength;
    for (let s = hashBytes(this.#key, 0, length) & mask; ; s = (s + 1) & mask) {
      const slot = this.#slots[s] ?? 0;
      if (slot === 0) return -1;
      const start = this.#pathStart(slot - 1);
      const end = this.#view.getUint32((slot - 1) * RECORD + PATH_END, true);
      if (end - start !== length) continue;
      let i = 0;
      while (i < length && this.#paths[start + i] === this.#key[i]) i++;
      if (i === length) return slot - 1;
    }
  }

  #insert(r: number): void {
    const mask = this.#slots.length - 1;
    const end = this.#view.getUint32(r * RECORD + PATH_END, true);
    let s = hashBytes(this.#paths, this.#pathStart(r), end) & mask;
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

/** A copy of `bytes` in a buffer of at least `need` bytes, doubling so appends stay linear. */
function grown(bytes: Buffer, need: number): Buffer {
  const out = Buffer.allocUnsafe(Math.max(need, bytes.length * 2, 4096));
  bytes.copy(out);
  return out;
}
