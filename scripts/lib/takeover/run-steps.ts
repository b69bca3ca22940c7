import { appendJournal, readJournal } from '../steps/jsonl-journal.ts';
import type { JournalEntry } from '../steps/jsonl-journal.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from './takeover-context.ts';
import { leaseId } from '../ownership/holder.ts';

export async function journal(
  ctx: TakeoverContext,
  state: LeaseState,
  step: string,
  fields: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  await appendJournal(ctx.paths.journal, {
    time: ctx.clock.now().toISOString(),
    command: 'takeover',
    run: ctx.run,
    step,
    lease: leaseId(state.record),
    ...fields,
  });
}

/**
 * This lease's journal entries (any run), oldest first. Two leases of one checkout acquired within the same second
 * share an id; a fresh acquire's `acquire:check` entry starts the newer one.
 */
export async function leaseEntries(ctx: TakeoverContext, id: string): Promise<JournalEntry[]> {
  const entries = (await readJournal(ctx.paths.journal)).filter((e) => e.command === 'takeover' && e['lease'] === id);
  const start = entries.findLastIndex((e) => e.step === 'acquire:check' && e['fresh'] === true);
  return start < 0 ? entries : entries.slice(start);
}

/**
 * Runs the steps in order, journaling each before the next starts. Steps already journaled for this lease (by a
 * killed run) are skipped: a retried acquire or hand-back continues from the last completed step.
 */
export async function runSteps(
  ctx: TakeoverContext,
  state: LeaseState,
  steps: readonly LeaseStep[],
  phase: string,
): Promise<void> {
  // Only the latest unbroken run of this phase's entries counts: an acquire resumed after a partial hand-back
  // (or the reverse) starts that phase over.
  const entries = await leaseEntries(ctx, leaseId(state.record));
  const done = new Set<string>();
  for (let i = entries.length - 1; i >= 0 && (entries[i]?.step ?? '').startsWith(`${phase}:`); i--)
    done.add(entries[i]!.step);
  for (const step of steps) {
    const key = `${phase}:${step.name}`;
    if (done.has(key) && step.name !== 'check') {
      ctx.log(`step=${key} skipped: completed by an earlier run`);
      continue;
    }
    const started = Date.now();
    const result = await step.run(ctx, state);
    const ms = Date.now() - started;
    await journal(ctx, state, key, { summary: result.summary, ms, ...(result.fields ?? {}) });
    ctx.log(`step=${key} ms=${ms} ${result.summary}`);
    await ctx.afterStep?.(key);
  }
}
