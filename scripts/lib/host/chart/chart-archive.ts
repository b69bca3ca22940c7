import { gunzipSync, gzipSync } from 'node:zlib';
import { ChartError } from './chart-error.ts';

/** The regular files of a chart package (`<name>/Chart.yaml`, …), by path inside the archive. */
export type ChartFiles = ReadonlyMap<string, Buffer>;

const BLOCK = 512;
// A chart is a few hundred KiB; a bomb that inflates past this is refused before it is read whole.
export const MAX_CHART_BYTES = 16 * 1024 * 1024;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

function octal(header: Buffer, start: number, length: number): number {
  const text = field(header, start, length).trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/** PAX extended header records (`<len> key=value\n`): only `path` matters here. */
function paxPath(body: Buffer): string | undefined {
  let path: string | undefined;
  let offset = 0;
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number.parseInt(body.subarray(offset, space).toString('utf8'), 10);
    if (!Number.isInteger(length) || length <= 0) break;
    const record = body.subarray(space + 1, offset + length - 1).toString('utf8');
    if (record.startsWith('path=')) path = record.slice(5);
    offset += length;
  }
  return path;
}

function safeName(name: string, label: string): string {
  const clean = name.replace(/^\.\//, '').replace(/\/+$/, '');
  if (clean === '' || clean.startsWith('/') || clean.split('/').some((p) => p === '..' || p === '')) {
    throw new ChartError('archive', `Cannot read chart package ${label}: entry "${name}" leaves the chart folder`, {
      details: { entry: name },
    });
  }
  return clean;
}

/**
 * Reads a `.tgz` chart package: regular files and folders only (a link, device or FIFO is refused, as is a path with
 * `..`), at most MAX_CHART_BYTES once inflated. Pure.
 */
export function readChartArchive(bytes: Uint8Array, label: string): ChartFiles {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_CHART_BYTES });
  } catch (cause) {
    throw new ChartError(
      'archive',
      `Cannot read chart package ${label}: not a gzip stream within ${MAX_CHART_BYTES} bytes (${(cause as Error).message})`,
      { cause },
    );
  }
  const files = new Map<string, Buffer>();
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = field(header, 345, 155);
    const base = field(header, 0, 100);
    const body = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    if (body.length !== size)
      throw new ChartError('archive', `Cannot read chart package ${label}: entry "${base}" is truncated`);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      longName = paxPath(body);
      continue;
    }
    if (type === 'g') continue;
    const name = safeName(longName ?? (prefix === '' ? base : `${prefix}/${base}`), label);
    longName = undefined;
    if (type === '5') continue;
    if (type !== '0' && type !== '\0')
      throw new ChartError(
        'archive',
        `Cannot read chart package ${label}: entry "${name}" is not a regular file (type "${type}")`,
        { details: { entry: name } },
      );
    files.set(name, Buffer.from(body));
  }
  return files;
}

function header(name: string, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let base = name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut <= 0 || Buffer.byteLength(base) > 100)
      throw new ChartError('archive', `Cannot package "${name}": path too long for a tar header`);
  }
  h.write(base, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155, 'utf8');
  const sum = h.reduce((a, b) => a + b, 0);
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A deterministic `.tgz` (sorted paths, mode 0644, time 0), so the same chart always has the same digest. Pure. */
export function writeChartArchive(files: ChartFiles): Buffer {
  const parts: Buffer[] = [];
  for (const name of [...files.keys()].sort()) {
    const body = files.get(name) ?? Buffer.alloc(0);
    parts.push(header(name, body.length), body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}
