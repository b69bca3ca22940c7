import type { Fields } from './step.ts';

/** One step as the journal sees it. */
export interface StepEvent {
  /** The step's name, `<phase>:<name>` when the run has a phase. */
  readonly key: string;
  /** Its position in the run, from 1. */
  readonly index: number;
  readonly status: 'ok' | 'failed' | 'skipped';
  /** How long it ran; a run's `finally` (the host's metrics) is journaled untimed. */
  readonly ms?: number;
  readonly summary?: string;
  readonly fields?: Fields;
  /** Why it failed, or why it was skipped. */
  readonly reason?: string;
}

/** Where the runner journals each step before the next one starts: stderr lines for systemd, a jsonl file on dev boxes. */
export interface StepSink {
  record(event: StepEvent): Promise<void> | void;
}
