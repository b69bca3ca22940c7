import { describe, expect, it } from 'vitest';
import { runSteps, skipJournaled } from '../../../scripts/lib/steps/index.ts';
import type { JournalEntry, Step, StepEvent } from '../../../scripts/lib/steps/index.ts';

const line = (step: string): JournalEntry => ({ time: 't', command: 'takeover', run: 'r1', step });
const step = (name: string, ran: string[]): Step<unknown, unknown> => ({
  name,
  async run() {
    ran.push(name);
    return { summary: name };
  },
});

describe('skipJournaled(): a retried phase continues after its last journaled step', () => {
  it('skips what the interrupted run of this phase journaled, runs the rest', async () => {
    const ran: string[] = [];
    const events: StepEvent[] = [];
    const resume = skipJournaled([line('handback:mark'), line('handback:stop')], { phase: 'handback' });
    await runSteps(
      {},
      {},
      {
        steps: ['mark', 'stop', 'window'].map((n) => step(n, ran)),
        phase: 'handback',
        resume,
        journal: { record: (e) => void events.push(e) },
      },
    );
    expect(ran).toEqual(['window']);
    expect(events.map((e) => `${e.key} ${e.status}`)).toEqual([
      'handback:mark skipped',
      'handback:stop skipped',
      'handback:window ok',
    ]);
    expect(events[0]?.reason).toBe('completed by an earlier run');
  });

  it('only the latest unbroken series of the phase counts: a phase interrupted by another starts over', () => {
    const resume = skipJournaled([line('handback:mark'), line('acquire:check')], { phase: 'handback' });
    expect(resume.decide('handback:mark')).toEqual({ action: 'run' });
    const after = skipJournaled([line('acquire:check'), line('handback:mark')], { phase: 'handback' });
    expect(after.decide('handback:mark').action).toBe('skip');
  });

  it('a step named in `always` runs again even when journaled (the check sees the cluster as it is now)', () => {
    const resume = skipJournaled([line('acquire:check'), line('acquire:record')], {
      phase: 'acquire',
      always: ['check'],
    });
    expect(resume.decide('acquire:check')).toEqual({ action: 'run' });
    expect(resume.decide('acquire:record').action).toBe('skip');
  });

  it('an empty journal skips nothing and journals no extra fields', () => {
    const resume = skipJournaled([], { phase: 'acquire' });
    expect(resume.name).toBe('skip-journaled');
    expect(resume.decide('acquire:record')).toEqual({ action: 'run' });
    expect(resume.journaled('acquire:record')).toEqual({});
  });
});
