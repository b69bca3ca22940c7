// Takeover's journal: every line names its lease; acquire and hand-back run on the one step runner (steps/), and a
// retried phase skips what a killed run of it already journaled.
import { appendJournal, readJournal } from '../steps/jsonl-journal.ts';
import type { JournalEntry } from '../steps/jsonl-journal.ts';
import { fileJournal } from '../steps/jsonl-journal.ts';
import { jsonlSink } from '../steps/jsonl-sink.ts';
import { runSteps } from '../steps/run-steps.ts';
import { skipJournaled } from '../steps/skip-journaled.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from './takeover-context.ts';
import { leaseId } from '../ownership/holder.ts';

/** One line outside a phase's steps (a runtime started, a workload replaced, a save's restarts). */
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
 * Runs a phase's steps (`acquire`, `handback`), each journaled as `<phase>:<step>` before the next starts. Steps the
 * latest unbroken run of this phase journaled for this lease are skipped (resume policy `skip-journaled`), except
 * `check`, which must see the cluster as it is now.
 */
export async function runLeaseSteps(
  ctx: TakeoverContext,
  state: LeaseState,
  steps: readonly LeaseStep[],
  phase: string,
): Promise<void> {
  const entries = await leaseEntries(ctx, leaseId(state.record));
  await runSteps(ctx, state, {
    steps,
    phase,
    resume: skipJournaled(entries, { phase, always: ['check'] }),
    journal: jsonlSink({
      journal: fileJournal(ctx.paths.journal),
      clock: ctx.clock,
      command: 'takeover',
      run: ctx.run,
      entry: () => ({ lease: leaseId(state.record) }),
      log: ctx.log,
    }),
    ...(ctx.afterStep === undefined ? {} : { afterStep: ctx.afterStep }),
  });
}
