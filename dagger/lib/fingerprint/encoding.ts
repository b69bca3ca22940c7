import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import type { FileMode } from './file-mode.ts';

export const ENCODING_VERSION = 'fingerprint/v1';

export interface FileLine {
  readonly path: string;
  readonly mode: FileMode;
  readonly sha256: string;
}

/** The lines before the file lines: version, platform, context, dockerfile, target, sorted args. */
export function encodeHeader(image: ImageEntry): string {
  let text = `${ENCODING_VERSION}\nplatform\t${image.platform}\ncontext\t${image.context}\ndockerfile\t${image.dockerfile}\ntarget\t${image.target ?? ''}\n`;
  for (const [key, value] of image.args) text += `arg\t${key}\t${value}\n`;
  return text;
}

export function fileLine(file: FileLine): string {
  return `file\t${file.mode}\t${file.sha256}\t${file.path}\n`;
}

/** The `fingerprint/v1` text of an image; `files` must already be sorted bytewise by path. */
export function encodeImage(image: ImageEntry, files: readonly FileLine[]): string {
  return encodeHeader(image) + files.map(fileLine).join('');
}

const FLUSH_BYTES = 1 << 16;
const TAB = 9;
const NEWLINE = 10;
const PREFIX = Buffer.from('file\t');

/**
 * Feeds `fileLine()`'s bytes to a hash through one reused buffer, one update per 64 KiB: an image's file lines are
 * hashed without a string per line, and the lines of a large tree are never all held at once.
 */
export class FileLineHasher {
  readonly #hash: Hash;
  readonly #buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  #at = 0;

  constructor(hash: Hash) {
    this.#hash = hash;
  }

  add(mode: string, sha256: string, path: string): void {
    const most = PREFIX.length + mode.length + sha256.length + path.length * 3 + 3;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: flushing sooner only updates the hash more often
    if (this.#at + most > FLUSH_BYTES) this.#flush();
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a line hashed whole gives the same bytes as one copied
    if (most > FLUSH_BYTES) {
      this.#hash.update(fileLine({ path, mode: mode as FileMode, sha256 }));
      return;
    }
    const b = this.#buffer;
    let at = this.#at + PREFIX.copy(b, this.#at);
    // Stryker disable next-line StringLiteral: a mode is ASCII, the same bytes in any encoding Buffer knows
    at += b.write(mode, at, 'latin1');
    b[at++] = TAB;
    // Stryker disable next-line StringLiteral: a hex digest is ASCII, the same bytes in any encoding Buffer knows
    at += b.write(sha256, at, 'latin1');
    b[at++] = TAB;
    // Stryker disable next-line StringLiteral: Buffer's default encoding is UTF-8 already; spelled out for the reader
    at += b.write(path, at, 'utf8');
    b[at++] = NEWLINE;
    this.#at = at;
  }

  /** The hash, every line added so far fed to it. */
  end(): Hash {
    this.#flush();
    return this.#hash;
  }

  #flush(): void {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an update with no bytes leaves the hash as it was
    if (this.#at > 0) this.#hash.update(this.#buffer.subarray(0, this.#at));
    this.#at = 0;
  }
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
