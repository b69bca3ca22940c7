import { resumeNone } from './resume-policy.ts';
import type { ResumePolicy } from './resume-policy.ts';
import type { Step, StepResult } from './step.ts';
import type { StepSink } from './step-sink.ts';

export interface RunStepsOptions<C, S, O> {
  readonly steps: readonly Step<C, S, O>[];
  /** Where each step is journaled before the next starts; none for a run that reports only its outcome. */
  readonly journal?: StepSink;
  /** What a rerun does with the steps an interrupted run journaled; default `none`. */
  readonly resume?: ResumePolicy;
  /** Journal keys become `<phase>:<step>` (takeover's `acquire` and `handback`). */
  readonly phase?: string;
  /** Called once a step is journaled (crash drills kill the process there). */
  readonly afterStep?: (key: string) => Promise<void> | void;
  /** A failure as the journal says it; default the error's message. */
  readonly describeError?: (error: unknown) => string;
}

export interface StepsRun<O> {
  /** Set when a step ended the run early (`next: false`). */
  readonly outcome: O | undefined;
  /** Each step journaled as done (run or resumed), in order. */
  readonly done: readonly { readonly step: string; readonly summary: string | undefined }[];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs the steps in order, each journaled before the next starts. A step that throws is journaled as failed and its
 * error rethrown: what comes after it (a record, a release) never runs ahead of what it depends on.
 */
export async function runSteps<C, S, O>(ctx: C, state: S, options: RunStepsOptions<C, S, O>): Promise<StepsRun<O>> {
  const resume = options.resume ?? resumeNone;
  const done: { step: string; summary: string | undefined }[] = [];
  for (const [position, step] of options.steps.entries()) {
    const key = options.phase === undefined ? step.name : `${options.phase}:${step.name}`;
    const index = position + 1;
    const decision = resume.decide(key);
    if (decision.action === 'skip') {
      await options.journal?.record({ key, index, status: 'skipped', reason: decision.reason });
      continue;
    }
    const started = Date.now();
    let result: StepResult<O>;
    if (decision.action === 'resume') result = { summary: decision.summary, fields: decision.fields };
    else {
      try {
        const ran = await step.run(ctx, state);
        result = { ...ran, fields: { ...(ran.fields ?? {}), ...resume.journaled(key) } };
      } catch (error) {
        const reason = (options.describeError ?? messageOf)(error);
        await options.journal?.record({ key, index, status: 'failed', ms: Date.now() - started, reason });
        throw error;
      }
    }
    const ms = Date.now() - started;
    await options.journal?.record({ key, index, status: 'ok', ms, summary: result.summary, fields: result.fields });
    done.push({ step: key, summary: result.summary });
    await options.afterStep?.(key);
    if (result.next === false) return { outcome: result.outcome, done };
  }
  return { outcome: undefined, done };
}
