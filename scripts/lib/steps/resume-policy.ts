import type { Fields } from './step.ts';

/** What happens to a step before it runs. */
export type ResumeDecision =
  | { readonly action: 'run' }
  /** Not run and not journaled again: an earlier run journaled it (takeover). */
  | { readonly action: 'skip'; readonly reason: string }
  /** Not run, but journaled as done by the earlier run named in its fields (deploy). */
  | { readonly action: 'resume'; readonly summary: string; readonly fields: Fields };

/** How a rerun after a crash treats what an earlier run journaled. */
export interface ResumePolicy {
  readonly name: 'none' | 'skip-journaled' | 'same-inputs';
  decide(key: string): ResumeDecision;
  /** Fields journaled with each step the policy covers, so that a later rerun can compare them. */
  journaled(key: string): Fields;
}

/** Every step runs, every time (the host tick: each step checks the host itself). */
export const resumeNone: ResumePolicy = {
  name: 'none',
  decide: () => ({ action: 'run' }),
  journaled: () => ({}),
};
