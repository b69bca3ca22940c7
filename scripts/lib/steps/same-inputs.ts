import type { JournalEntry } from './jsonl-journal.ts';
import type { ResumePolicy } from './resume-policy.ts';

export interface SameInputsOptions {
  /** The command whose runs count (a journal holds every command's lines). */
  readonly command?: string;
  /** What the steps depend on (deploy: the commit and the settings' hash); journaled with every covered step. */
  readonly inputs: Readonly<Record<string, string>>;
  /** The steps a rerun may resume; the others always run (they converge on their own). */
  readonly steps: readonly string[];
  /** The step that ends a run: a run journaled up to it finished, and leaves nothing to resume. */
  readonly finishedBy: string;
}

/** What the last unfinished run completed: step → the run that really did it and the inputs it journaled. */
export function unfinishedSteps(
  entries: readonly JournalEntry[],
  options: Pick<SameInputsOptions, 'command' | 'finishedBy'>,
): ReadonlyMap<string, { readonly run: string; readonly entry: JournalEntry }> {
  const runs = options.command === undefined ? entries : entries.filter((e) => e.command === options.command);
  const last = runs.at(-1);
  const out = new Map<string, { run: string; entry: JournalEntry }>();
  if (last === undefined || last.step === options.finishedBy) return out;
  for (const entry of runs.filter((e) => e.run === last.run))
    out.set(entry.step, { run: String(entry['resumedFrom'] ?? entry.run), entry });
  return out;
}

/**
 * `same-inputs`: a step the last, unfinished run completed with the same inputs is journaled as resumed (`already
 * done by run <id>`, `resumedFrom`) instead of running again; a finished run, other inputs or an uncovered step run.
 */
export function sameInputs(entries: readonly JournalEntry[], options: SameInputsOptions): ResumePolicy {
  const done = unfinishedSteps(entries, options);
  const covered = new Set(options.steps);
  const same = (entry: JournalEntry) => Object.entries(options.inputs).every(([key, value]) => entry[key] === value);
  return {
    name: 'same-inputs',
    decide(key) {
      const found = covered.has(key) ? done.get(key) : undefined;
      if (found === undefined || !same(found.entry)) return { action: 'run' };
      return {
        action: 'resume',
        summary: `already done by run ${found.run}`,
        fields: { ...options.inputs, resumedFrom: found.run },
      };
    },
    journaled: (key) => (covered.has(key) ? options.inputs : {}),
  };
}
