// The index file's entries under a folder, with the repository's layout and settings read from their files: what
// `git ls-files -s -- .`, `git rev-parse` and `git config` would say, with no git process.
import { readFileSync, statSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { isAscii } from 'node:buffer';
import { parseGitIndex } from './git-index.ts';
import type { GitIndex, IndexEntries } from './git-index.ts';
import { lowerBound } from './index-entries.ts';
import { findGitRepo, lastValue } from './git-repo-layout.ts';
import type { GitRepoLayout } from './git-repo-layout.ts';

export interface IndexFileEntries {
  readonly layout: GitRepoLayout;
  /** The whole index (undefined before the first `git add`), and `all`: its entries, or none. */
  readonly index: GitIndex | undefined;
  readonly all: IndexEntries;
  readonly indexStat: BigIntStats | undefined;
  /** The folder's run of `all`: [from, to). */
  readonly from: number;
  readonly to: number;
  /** Every entry path is ASCII: paths decode as latin1. */
  readonly ascii: boolean;
  /** `config -z --get-regexp` records of the settings that make disk bytes differ from blobs. */
  readonly config: string;
}

const EMPTY: IndexEntries = {
  count: 0,
  paths: Buffer.alloc(0),
  pathStart: new Uint32Array(1),
  mode: new Uint32Array(0),
  stage: new Uint8Array(0),
  oids: Buffer.alloc(0),
  oidBytes: 20,
};

function convertingConfig(layout: GitRepoLayout): string {
  const keys = new Set(['core.filemode', 'core.symlinks', 'core.autocrlf', 'core.attributesfile']);
  return layout.config
    .filter((item) => keys.has(item.key))
    .map((item) => (item.value === null ? `${item.key}\0` : `${item.key}\n${item.value}\0`))
    .join('');
}

/** The index file as read, with the repository's layout and settings; nothing parsed yet. */
export interface IndexFile {
  readonly layout: GitRepoLayout;
  /** The file's bytes, or undefined before the first `git add`. */
  readonly data: Buffer | undefined;
  readonly indexStat: BigIntStats | undefined;
  readonly oidBytes: 20 | 32;
  /** `config -z --get-regexp` records of the settings that make disk bytes differ from blobs. */
  readonly config: string;
}

/** Throws IndexRefusal for a layout it does not model; the caller then runs git. */
export function readIndexFile(dir: string): IndexFile {
  const layout = findGitRepo(dir);
  const indexFile = join(layout.gitDir, 'index');
  const indexStat = statSync(indexFile, { bigint: true, throwIfNoEntry: false });
  const oidBytes = lastValue(layout.config, 'extensions.objectformat') === 'sha256' ? 32 : 20;
  const data = indexStat === undefined ? undefined : readFileSync(indexFile);
  return { layout, data, indexStat, oidBytes, config: convertingConfig(layout) };
}

/**
 * The checksum git writes at the end of the index (a hash of every byte before it): it names every entry's path,
 * mode and blob id, and through a split index's link the shared index too. Undefined for no index, another
 * format, or `index.skipHash` (zeros).
 */
export function indexChecksum(file: IndexFile): string | undefined {
  const { data, oidBytes } = file;
  if (data === undefined || data.length < 12 + oidBytes || data.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const trailer = data.subarray(data.length - oidBytes);
  return trailer.some((b) => b !== 0) ? trailer.toString('hex') : undefined;
}

/** Parses the entries; throws IndexRefusal for what it does not model (a split or sparse index, …). */
export function parseIndexFile(file: IndexFile): IndexFileEntries {
  const { layout, data, indexStat, oidBytes, config } = file;
  const index = data === undefined ? undefined : parseGitIndex(data, oidBytes);
  const all = index ?? { ...EMPTY, oidBytes };
  const { prefix } = layout;
  const from = prefix === '' ? 0 : lowerBound(all, Buffer.from(prefix));
  const to = prefix === '' ? all.count : lowerBound(all, Buffer.from(`${prefix.slice(0, -1)}0`), from); // '0' follows '/'
  // Paths of plain ASCII (the common case) decode as latin1, several times faster than UTF-8 and the same string.
  return { layout, index, all, indexStat, from, to, ascii: isAscii(all.paths), config };
}

/** Throws IndexRefusal for what it does not model; the caller then runs git. */
export const readIndexFileEntries = (dir: string): IndexFileEntries => parseIndexFile(readIndexFile(dir));

/** Entries [from, to) with `cut` leading path bytes removed: a folder's own view of the index. */
export function sliceEntries(index: IndexEntries, from: number, to: number, cut: number): IndexEntries {
  if (from === 0 && to === index.count && cut === 0) return index;
  const count = to - from;
  const base = index.pathStart[from] as number;
  const pathStart = new Uint32Array(count + 1);
  const paths = Buffer.allocUnsafe(Math.max(1, (index.pathStart[to] as number) - base - count * cut));
  let w = 0;
  for (let i = 0; i < count; i++) {
    w += index.paths.copy(paths, w, (index.pathStart[from + i] as number) + cut, index.pathStart[from + i + 1]);
    pathStart[i + 1] = w;
  }
  return {
    count,
    paths: paths.subarray(0, w),
    pathStart,
    mode: index.mode.slice(from, to),
    stage: index.stage.slice(from, to),
    oids: Buffer.from(index.oids.subarray(from * index.oidBytes, to * index.oidBytes)),
    oidBytes: index.oidBytes,
  };
}
