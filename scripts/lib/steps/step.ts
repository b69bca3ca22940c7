/** What a journal line carries besides the step's name: a few values, JSON-serialisable. */
export type Fields = Readonly<Record<string, unknown>>;

/**
 * What a step reports: one summary line and fields for the journal. `next: false` ends the run here with an outcome
 * (the host's tick stops after "decide" on an unchanged channel); without it the next step runs.
 */
export type StepResult<O = never> =
  | { readonly next?: true; readonly summary?: string; readonly fields?: Fields }
  | { readonly next: false; readonly outcome: O; readonly summary?: string; readonly fields?: Fields };

/** The one step signature of every reconcile: read the context, change the state, report. */
export type StepRun<C, S, O = never> = (ctx: C, state: S) => Promise<StepResult<O>>;

/** A named step; the runner journals it under its name. */
export interface Step<C, S, O = never> {
  readonly name: string;
  run(ctx: C, state: S): Promise<StepResult<O>>;
}

/** A step whose module loads on first use: a run that stops early never loads the code of the steps it skips. */
export function lazyStep<C, S, O = never>(name: string, load: () => Promise<StepRun<C, S, O>>): Step<C, S, O> {
  let loaded: Promise<StepRun<C, S, O>> | undefined;
  return {
    name,
    run: async (ctx, state) => (await (loaded ??= load()))(ctx, state),
  };
}
