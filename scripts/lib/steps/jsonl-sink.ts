import type { Clock } from '../ports/clock.ts';
import type { Journal } from './jsonl-journal.ts';
import type { Fields } from './step.ts';
import type { StepSink } from './step-sink.ts';

export interface JsonlSinkOptions {
  readonly journal: Journal;
  readonly clock: Clock;
  /** The command the lines name (`reconcile`, `deploy`, `takeover`). */
  readonly command: string;
  readonly run: string;
  /** What every line says after its step (the commit delivered, the lease), read when the line is written. */
  readonly entry?: () => Fields;
  /** One human line per step, after its journal line: `step=<key> [label] ms=<ms> <summary>`. */
  readonly log?: (line: string) => void;
  readonly label?: () => string;
}

/**
 * A dev box's journal: one JSON line per completed step, `{time, command, run, step, ...entry, summary, ms, ...fields}`,
 * durable before the next step starts. A failed step writes no line (the command records its failure its own way),
 * and neither does a skipped one: what a rerun skips is what a line already says was done.
 */
export function jsonlSink(options: JsonlSinkOptions): StepSink {
  return {
    async record(event) {
      const label = options.label === undefined ? '' : ` ${options.label()}`;
      if (event.status === 'skipped') {
        options.log?.(`step=${event.key}${label} skipped: ${event.reason ?? 'resumed'}`);
        return;
      }
      if (event.status === 'failed') return;
      await options.journal.append({
        time: options.clock.now().toISOString(),
        command: options.command,
        run: options.run,
        step: event.key,
        ...(options.entry?.() ?? {}),
        summary: event.summary,
        ms: event.ms,
        ...(event.fields ?? {}),
      });
      options.log?.(`step=${event.key}${label} ms=${event.ms} ${event.summary ?? ''}`);
    },
  };
}
