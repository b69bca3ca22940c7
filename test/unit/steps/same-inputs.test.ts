import { describe, expect, it } from 'vitest';
import { resumeNone, runSteps, sameInputs, unfinishedSteps } from '../../../scripts/lib/steps/index.ts';
import type { JournalEntry, Step, StepEvent } from '../../../scripts/lib/steps/index.ts';

const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);
const entry = (run: string, step: string, extra: Record<string, unknown> = {}): JournalEntry => ({
  time: '2026-11-30T10:00:00Z',
  command: 'deploy',
  run,
  step,
  commit: C1,
  ...extra,
});
const options = (inputs: Record<string, string>) => ({
  command: 'deploy',
  inputs,
  steps: ['layer-host', 'layer-k3s'],
  finishedBy: 'release',
});
const step = (name: string, ran: string[]): Step<unknown, unknown> => ({
  name,
  async run() {
    ran.push(name);
    return { summary: `${name} applied`, fields: { hosts: 1 } };
  },
});

describe('sameInputs(): a rerun resumes only what the unfinished run did with the same inputs', () => {
  const killed = [
    entry('r1', 'claim'),
    entry('r1', 'layer-host', { settings: 's1' }),
    entry('r1', 'layer-k3s', { settings: 's1' }),
  ];

  it('the same commit and settings: journaled as "already done by run r1", not run; uncovered steps run', async () => {
    const ran: string[] = [];
    const events: StepEvent[] = [];
    await runSteps(
      {},
      {},
      {
        steps: ['claim', 'layer-host', 'layer-k3s'].map((n) => step(n, ran)),
        resume: sameInputs(killed, options({ commit: C1, settings: 's1' })),
        journal: { record: (e) => void events.push(e) },
      },
    );
    expect(ran).toEqual(['claim']);
    expect(events[1]).toMatchObject({
      key: 'layer-host',
      status: 'ok',
      summary: 'already done by run r1',
      fields: { commit: C1, settings: 's1', resumedFrom: 'r1' },
    });
    expect(events[0]?.fields).toEqual({ hosts: 1 });
  });

  it('other settings or another commit: every covered step runs again and journals the new inputs', async () => {
    for (const inputs of [
      { commit: C1, settings: 's2' },
      { commit: C2, settings: 's1' },
    ]) {
      const ran: string[] = [];
      const events: StepEvent[] = [];
      await runSteps(
        {},
        {},
        {
          steps: ['layer-host', 'layer-k3s'].map((n) => step(n, ran)),
          resume: sameInputs(killed, options(inputs)),
          journal: { record: (e) => void events.push(e) },
        },
      );
      expect(ran).toEqual(['layer-host', 'layer-k3s']);
      expect(events[0]?.fields).toEqual({ hosts: 1, ...inputs });
    }
  });

  it('a finished run (its last step is release) leaves nothing to resume', () => {
    const resume = sameInputs(
      [entry('r1', 'layer-host', { settings: 's1' }), entry('r1', 'release')],
      options({ commit: C1, settings: 's1' }),
    );
    expect(resume.decide('layer-host')).toEqual({ action: 'run' });
  });

  it("only the last run of the command counts; other commands' lines in between are ignored", () => {
    const entries = [entry('r1', 'layer-host', { settings: 's1' }), { ...entry('x', 'push'), command: 'reconcile' }];
    expect(sameInputs(entries, options({ commit: C1, settings: 's1' })).decide('layer-host').action).toBe('resume');
    const later = [...entries, entry('r2', 'claim')];
    expect(sameInputs(later, options({ commit: C1, settings: 's1' })).decide('layer-host')).toEqual({ action: 'run' });
  });

  it('a resumed step keeps naming the run that really did it', () => {
    const done = unfinishedSteps([entry('r2', 'layer-host', { settings: 's1', resumedFrom: 'r1' })], options({}));
    expect(done.get('layer-host')?.run).toBe('r1');
    const resume = sameInputs(
      [entry('r2', 'layer-host', { settings: 's1', resumedFrom: 'r1' })],
      options({ commit: C1, settings: 's1' }),
    );
    expect(resume.decide('layer-host')).toMatchObject({ summary: 'already done by run r1' });
  });

  it('a journaled line without the inputs (an older format) is not resumed', () => {
    const resume = sameInputs([entry('r1', 'layer-host')], options({ commit: C1, settings: 's1' }));
    expect(resume.decide('layer-host')).toEqual({ action: 'run' });
    expect(resume.journaled('claim')).toEqual({});
    expect(resume.journaled('layer-host')).toEqual({ commit: C1, settings: 's1' });
  });
});

describe('resumeNone: every step runs every time', () => {
  it('decides run and journals nothing extra, whatever the journal says', () => {
    expect(resumeNone.name).toBe('none');
    expect(resumeNone.decide('decide')).toEqual({ action: 'run' });
    expect(resumeNone.journaled('decide')).toEqual({});
  });
});
