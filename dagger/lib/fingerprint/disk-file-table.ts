/** Bit of `DiskFileTable.flags`: the entry is a symlink, hashed as its target, never followed. */
export const FILE_SYMLINK = 1;
/** Bit of `DiskFileTable.flags`: prove the bytes read are the blob git listed (see `DiskFileTable.stampNs`). */
export const FILE_PROVE = 2;

/**
 * Files to hash as one buffer of paths and four typed arrays: no object or string per file, and a table a worker
 * thread can read in place when it lives in shared memory.
 */
export interface DiskFileTable {
  readonly count: number;
  /** UTF-8 paths relative to the root, end to end: file `i` is bytes `[pathEnds[i - 1] ?? 0, pathEnds[i])`. */
  readonly paths: Buffer;
  readonly pathEnds: Uint32Array;
  /** Bytes when a stat already said, -1 when unknown; hashing never needs it. */
  readonly sizes: Float64Array;
  readonly flags: Uint8Array;
  /**
   * The filesystem's clock before git looked, for git's racy-clean rule: a `FILE_PROVE` file is proven when its
   * mtime and ctime after reading are both older, so nothing wrote to it since git vouched for it. Without a stamp
   * nothing is proven.
   */
  readonly stampNs: bigint | undefined;
}

/** The path of file `i` (decoded per call: the table keeps bytes only). */
export function tablePath(table: DiskFileTable, i: number): string {
  const start = i === 0 ? 0 : (table.pathEnds[i - 1] ?? 0);
  return table.paths.toString('utf8', start, table.pathEnds[i]);
}

/** A buffer of `bytes`, shared when a worker thread will read or write it. */
function memory(bytes: number, shared: boolean): ArrayBufferLike {
  return shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
}

/** Whether a worker thread can read the table in place. */
export function isShared(table: DiskFileTable): boolean {
  return [table.paths, table.pathEnds, table.sizes, table.flags].every((a) => a.buffer instanceof SharedArrayBuffer);
}

/** `table` in shared memory (what a worker thread reads without a copy of its own): itself, or a copy. */
export function sharedTable(table: DiskFileTable): DiskFileTable {
  if (isShared(table)) return table;
  const n = table.count;
  const pathBytes = n === 0 ? 0 : (table.pathEnds[n - 1] ?? 0);
  const paths = Buffer.from(memory(pathBytes, true));
  paths.set(table.paths.subarray(0, pathBytes));
  const pathEnds = new Uint32Array(memory(n * 4, true));
  pathEnds.set(table.pathEnds.subarray(0, n));
  const sizes = new Float64Array(memory(n * 8, true));
  sizes.set(table.sizes.subarray(0, n));
  const flags = new Uint8Array(memory(n, true));
  flags.set(table.flags.subarray(0, n));
  return { count: n, paths, pathEnds, sizes, flags, stampNs: table.stampNs };
}

/**
 * Builds a `DiskFileTable` one file at a time: a file costs a few bytes, not objects. In shared memory unless told
 * otherwise, so hashing on several threads needs no copy; given the exact sizes (files, UTF-8 bytes of all paths) it
 * allocates once, else its arrays grow by doubling.
 */
export class DiskFileTableBuilder {
  #count = 0;
  #shared: boolean;
  #paths: Buffer;
  #pathBytes = 0;
  #pathEnds: Uint32Array;
  #sizes: Float64Array;
  #flags: Uint8Array;

  constructor(capacity?: { readonly files: number; readonly pathBytes: number; readonly shared?: boolean }) {
    const files = Math.max(1, capacity?.files ?? 64);
    this.#shared = capacity?.shared ?? typeof SharedArrayBuffer === 'function';
    this.#paths = Buffer.from(memory(Math.max(1, capacity?.pathBytes ?? 4096), this.#shared));
    this.#pathEnds = new Uint32Array(memory(files * 4, this.#shared));
    this.#sizes = new Float64Array(memory(files * 8, this.#shared));
    this.#flags = new Uint8Array(memory(files, this.#shared));
  }

  get count(): number {
    return this.#count;
  }

  /** Adds a file; returns its index in the table. */
  add(path: string, size: number | undefined, flags: number): number {
    if (this.#pathBytes + path.length * 3 > this.#paths.length) {
      const need = this.#pathBytes + Buffer.byteLength(path);
      if (need > this.#paths.length) {
        const grown = Buffer.from(memory(Math.max(need, this.#paths.length * 2), this.#shared));
        this.#paths.copy(grown, 0, 0, this.#pathBytes);
        this.#paths = grown;
      }
    }
    this.#pathBytes += this.#paths.write(path, this.#pathBytes, 'utf8');
    const i = this.#count++;
    if (i === this.#flags.length) {
      const n = this.#flags.length * 2;
      const pathEnds = new Uint32Array(memory(n * 4, this.#shared));
      pathEnds.set(this.#pathEnds);
      this.#pathEnds = pathEnds;
      const sizes = new Float64Array(memory(n * 8, this.#shared));
      sizes.set(this.#sizes);
      this.#sizes = sizes;
      const bits = new Uint8Array(memory(n, this.#shared));
      bits.set(this.#flags);
      this.#flags = bits;
    }
    this.#pathEnds[i] = this.#pathBytes;
    this.#sizes[i] = size ?? -1;
    this.#flags[i] = flags;
    return i;
  }

  /** The table of the files added so far (views of the builder's arrays: add no more after this). */
  build(stampNs: bigint | undefined): DiskFileTable {
    const n = this.#count;
    return {
      count: n,
      paths: this.#paths.subarray(0, this.#pathBytes),
      pathEnds: this.#pathEnds.subarray(0, n),
      sizes: this.#sizes.subarray(0, n),
      flags: this.#flags.subarray(0, n),
      stampNs,
    };
  }
}
