import { createHash } from 'node:crypto';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import type { FileMode } from './file-mode.ts';

export const ENCODING_VERSION = 'fingerprint/v1';

export interface FileLine {
  readonly path: string;
  readonly mode: FileMode;
  readonly sha256: string;
}

/** The `fingerprint/v1` text of an image; `files` must already be sorted bytewise by path. */
export function encodeImage(image: ImageEntry, files: readonly FileLine[]): string {
  const lines = [
    ENCODING_VERSION,
    `platform\t${image.platform}`,
    `context\t${image.context}`,
    `dockerfile\t${image.dockerfile}`,
    `target\t${image.target ?? ''}`,
  ];
  for (const [key, value] of image.args) lines.push(`arg\t${key}\t${value}`);
  for (const file of files) lines.push(`file\t${file.mode}\t${file.sha256}\t${file.path}`);
  return `${lines.join('\n')}\n`;
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
