import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface JournalEntry {
  readonly time: string;
  readonly command: string;
  readonly run: string;
  readonly step: string;
  readonly [key: string]: unknown;
}

/** Appends one JSON line and fsyncs it before returning, so the next step never runs ahead of its record. */
export async function appendJournal(file: string, entry: JournalEntry): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, 'a', 0o644);
  try {
    await handle.write(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface Journal {
  append(entry: JournalEntry): Promise<void>;
  close(): Promise<void>;
}

/**
 * One descriptor for a whole command: each line is written and `fdatasync`ed before `append` returns. Synchronous
 * calls on purpose: the next step must wait for the line anyway, and two thread-pool hops per step cost more.
 */
export async function openJournal(file: string): Promise<Journal> {
  await mkdir(dirname(file), { recursive: true });
  const fd = openSync(file, 'a', 0o644);
  return {
    async append(entry) {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fdatasyncSync(fd);
    },
    close: async () => closeSync(fd),
  };
}

/** Every complete line; a torn last line (a crash mid-append) is ignored. */
export async function readJournal(file: string): Promise<JournalEntry[]> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) =>
    e.code === 'ENOENT' ? '' : Promise.reject(e),
  );
  const out: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as JournalEntry);
    } catch {
      // a partial line from an interrupted append
    }
  }
  return out;
}
