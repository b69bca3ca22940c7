import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileJournal, jsonlSink, openJournal, readJournal, runSteps } from '../../../scripts/lib/steps/index.ts';
import type { Step } from '../../../scripts/lib/steps/index.ts';
import { manualClock } from '../../../scripts/lib/ports/clock.ts';

let dir: string;
let file: string;
const clock = manualClock(new Date('2026-11-30T10:00:00.000Z'));
const C = 'c'.repeat(40);
const step = (name: string, fail = false): Step<unknown, unknown> => ({
  name,
  async run() {
    if (fail) throw new Error(`${name} failed`);
    return { summary: `${name} summary`, fields: { extra: name } };
  },
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jsonl-sink-'));
  file = join(dir, 'metallo', 'dev', 'journal.jsonl');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('jsonlSink(): the dev box journal', () => {
  it('one line per completed step: time, command, run, step, the entry fields, summary, ms, then the step fields', async () => {
    const journal = await openJournal(file);
    const log: string[] = [];
    await runSteps(
      {},
      {},
      {
        steps: [step('claim'), step('push')],
        journal: jsonlSink({
          journal,
          clock,
          command: 'reconcile',
          run: 'r1',
          entry: () => ({ commit: C }),
          log: (line) => log.push(line),
          label: () => `commit=${C.slice(0, 12)}`,
        }),
      },
    );
    await journal.close();
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0] ?? '');
    expect(Object.keys(first)).toEqual(['time', 'command', 'run', 'step', 'commit', 'summary', 'ms', 'extra']);
    expect(first).toMatchObject({
      time: '2026-11-30T10:00:00.000Z',
      command: 'reconcile',
      run: 'r1',
      step: 'claim',
      commit: C,
      summary: 'claim summary',
      extra: 'claim',
    });
    expect(log.map((l) => l.replace(/ms=\d+/, 'ms=N'))).toEqual([
      `step=claim commit=${C.slice(0, 12)} ms=N claim summary`,
      `step=push commit=${C.slice(0, 12)} ms=N push summary`,
    ]);
  });

  it('a failed step writes no line (the command records its own failure); a skipped one only says so', async () => {
    const log: string[] = [];
    const sink = jsonlSink({
      journal: fileJournal(file),
      clock,
      command: 'takeover',
      run: 'r2',
      log: (l) => log.push(l),
    });
    await expect(
      runSteps({}, {}, { steps: [step('mark'), step('stop', true)], journal: sink, phase: 'handback' }),
    ).rejects.toThrow('stop failed');
    await sink.record({ key: 'handback:mark', index: 1, status: 'skipped', reason: 'completed by an earlier run' });
    expect((await readJournal(file)).map((e) => e.step)).toEqual(['handback:mark']);
    expect(log.at(-1)).toBe('step=handback:mark skipped: completed by an earlier run');
    expect(log[0]).toMatch(/^step=handback:mark ms=\d+ mark summary$/);
  });

  it('readJournal() keeps every complete line and drops a torn last one (a crash mid-append)', async () => {
    await fileJournal(file).append({ time: 't', command: 'deploy', run: 'r1', step: 'claim' });
    await appendFile(file, '{"time":"t","command":"deploy","ru');
    expect(await readJournal(file)).toEqual([{ time: 't', command: 'deploy', run: 'r1', step: 'claim' }]);
    expect(await readJournal(join(dir, 'missing.jsonl'))).toEqual([]);
  });
});
