/**
 * What hashing a `DiskFileTable` found, index for index: SHA-256 digests in one array of 32-byte slots, byte
 * counts and proofs in typed arrays. In shared memory when a worker thread writes into it.
 */
export interface FileDigests {
  readonly count: number;
  /** The SHA-256 of file `i` is bytes `[32 * i, 32 * i + 32)`. */
  readonly sha256: Buffer;
  readonly bytes: Float64Array;
  /** 1 when the bytes read were proven to be the blob git listed (`FILE_PROVE`), else 0. */
  readonly proven: Uint8Array;
}

export const SHA256_BYTES = 32;

export function fileDigests(count: number, shared = false): FileDigests {
  const memory = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    count,
    sha256: Buffer.from(memory(count * SHA256_BYTES)),
    bytes: new Float64Array(memory(count * 8)),
    proven: new Uint8Array(memory(count)),
  };
}

/** The hex SHA-256 of file `i`. */
export function digestHex(digests: FileDigests, i: number): string {
  return digests.sha256.toString('hex', i * SHA256_BYTES, (i + 1) * SHA256_BYTES);
}
