import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendJournal, readJournal } from '../../../scripts/lib/steps/jsonl-journal.ts';

describe('journal', () => {
  it('appends one line per step and ignores a torn last line', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'journal-')), 'journal.jsonl');
    await appendJournal(file, { time: 't1', command: 'reconcile', run: 'r', step: 'claim' });
    await appendJournal(file, { time: 't2', command: 'reconcile', run: 'r', step: 'push' });
    await writeFile(file, `${await readFile(file, 'utf8')}{"time":"t3","st`);
    expect((await readJournal(file)).map((e) => e.step)).toEqual(['claim', 'push']);
  });
});
