import type { JournalEntry } from './jsonl-journal.ts';
import type { ResumePolicy } from './resume-policy.ts';

export interface SkipJournaledOptions {
  /** The run's phase: only the latest unbroken series of `<phase>:` lines counts. */
  readonly phase: string;
  /** Steps that run again even when journaled (a check must see the cluster as it is now). */
  readonly always?: readonly string[];
}

/**
 * `skip-journaled`: a step the interrupted run already journaled is not run again, so a retried acquire or hand-back
 * continues after the last completed step. `entries` are the lines of this one piece of work (takeover: one lease),
 * oldest first; a phase interrupted by another one (an acquire resumed after a partial hand-back) starts over.
 */
export function skipJournaled(entries: readonly JournalEntry[], options: SkipJournaledOptions): ResumePolicy {
  const prefix = `${options.phase}:`;
  const done = new Set<string>();
  for (let i = entries.length - 1; i >= 0 && (entries[i]?.step ?? '').startsWith(prefix); i--)
    done.add(entries[i]!.step);
  const always = new Set((options.always ?? []).map((name) => `${prefix}${name}`));
  return {
    name: 'skip-journaled',
    decide: (key) =>
      done.has(key) && !always.has(key) ? { action: 'skip', reason: 'completed by an earlier run' } : { action: 'run' },
    journaled: () => ({}),
  };
}
