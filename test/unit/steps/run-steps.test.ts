import { describe, expect, it } from 'vitest';
import { lazyStep, runSteps } from '../../../scripts/lib/steps/index.ts';
import type { Step, StepEvent, StepSink } from '../../../scripts/lib/steps/index.ts';

interface State {
  ran: string[];
}
type Outcome = { readonly result: string };

const step = (name: string, behaviour: 'ok' | 'stop' | 'fail' = 'ok'): Step<unknown, State, Outcome> => ({
  name,
  async run(_ctx, state) {
    if (behaviour === 'fail') throw new Error(`${name} broke`);
    state.ran.push(name);
    if (behaviour === 'stop') return { next: false, outcome: { result: `stopped at ${name}` }, fields: { why: 'x' } };
    return { summary: `${name} done`, fields: { n: state.ran.length } };
  },
});

function recorder(): StepSink & { events: StepEvent[]; order: string[] } {
  const events: StepEvent[] = [];
  const order: string[] = [];
  return {
    events,
    order,
    record(event) {
      events.push(event);
      order.push(`journal ${event.key}`);
    },
  };
}

describe('runSteps(): one loop for every reconcile', () => {
  it('runs the steps in order, journaling each one (position, status, duration, summary, fields) before the next', async () => {
    const journal = recorder();
    const state = { ran: [] };
    const run = await runSteps({}, state, {
      steps: [step('a'), step('b')],
      journal,
      afterStep: (key) => void journal.order.push(`after ${key}`),
    });
    expect(state.ran).toEqual(['a', 'b']);
    expect(journal.order).toEqual(['journal a', 'after a', 'journal b', 'after b']);
    expect(journal.events.map(({ ms, ...rest }) => rest)).toEqual([
      { key: 'a', index: 1, status: 'ok', summary: 'a done', fields: { n: 1 } },
      { key: 'b', index: 2, status: 'ok', summary: 'b done', fields: { n: 2 } },
    ]);
    expect(journal.events.every((e) => typeof e.ms === 'number' && e.ms >= 0)).toBe(true);
    expect(run).toEqual({
      outcome: undefined,
      done: [
        { step: 'a', summary: 'a done' },
        { step: 'b', summary: 'b done' },
      ],
    });
  });

  it('a step that answers next: false ends the run with its outcome; later steps never run', async () => {
    const journal = recorder();
    const state = { ran: [] };
    const run = await runSteps({}, state, { steps: [step('read'), step('decide', 'stop'), step('apply')], journal });
    expect(state.ran).toEqual(['read', 'decide']);
    expect(run.outcome).toEqual({ result: 'stopped at decide' });
    expect(journal.events.map((e) => e.key)).toEqual(['read', 'decide']);
    expect(journal.events[1]?.fields).toEqual({ why: 'x' });
  });

  it('a step that throws is journaled as failed with the described error, and the error reaches the caller', async () => {
    const journal = recorder();
    const state = { ran: [] };
    const after: string[] = [];
    const failing = runSteps({}, state, {
      steps: [step('a'), step('b', 'fail'), step('c')],
      journal,
      afterStep: (key) => void after.push(key),
      describeError: (e) => `[boom] ${(e as Error).message}`,
    });
    await expect(failing).rejects.toThrow('b broke');
    expect(state.ran).toEqual(['a']);
    expect(after).toEqual(['a']);
    expect(journal.events[1]).toMatchObject({ key: 'b', index: 2, status: 'failed', reason: '[boom] b broke' });
    expect(journal.events).toHaveLength(2);
  });

  it('a phase names every key: the journal, afterStep and the run say `<phase>:<step>`', async () => {
    const journal = recorder();
    const after: string[] = [];
    const run = await runSteps(
      {},
      { ran: [] },
      {
        steps: [step('check'), step('record')],
        journal,
        phase: 'acquire',
        afterStep: (key) => void after.push(key),
      },
    );
    expect(journal.events.map((e) => e.key)).toEqual(['acquire:check', 'acquire:record']);
    expect(after).toEqual(['acquire:check', 'acquire:record']);
    expect(run.done.map((d) => d.step)).toEqual(['acquire:check', 'acquire:record']);
  });

  it('runs without a journal (pharos provisioning reports only its outcome)', async () => {
    const state = { ran: [] };
    await runSteps({}, state, { steps: [step('role'), step('database')] });
    expect(state.ran).toEqual(['role', 'database']);
  });

  it('waits for an asynchronous journal before the next step starts', async () => {
    const state = { ran: [] as string[] };
    const seen: string[][] = [];
    await runSteps({}, state, {
      steps: [step('a'), step('b')],
      journal: {
        async record() {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.push([...state.ran]);
        },
      },
    });
    expect(seen).toEqual([['a'], ['a', 'b']]);
  });
});

describe('lazyStep(): a step module loads on first use, once', () => {
  it('a run that stops before a lazy step never loads it; one that reaches it twice loads it once', async () => {
    let loads = 0;
    const late = lazyStep<unknown, State, Outcome>('late', async () => {
      loads += 1;
      return async (_ctx, state) => {
        state.ran.push('late');
        return { summary: 'late done' };
      };
    });
    await runSteps({}, { ran: [] }, { steps: [step('decide', 'stop'), late] });
    expect(loads).toBe(0);
    const state = { ran: [] as string[] };
    await runSteps({}, state, { steps: [late, late] });
    expect(state.ran).toEqual(['late', 'late']);
    expect(loads).toBe(1);
  });
});
