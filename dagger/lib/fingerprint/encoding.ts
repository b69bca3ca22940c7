import { createHash } from 'node:crypto';
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

export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
