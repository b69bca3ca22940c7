import type { Fields } from './step.ts';
import type { StepSink } from './step-sink.ts';

/** Where key=value lines go: `log(step, fields)` (stderr, which systemd's journal keeps; tests collect them). */
export type KeyValueLog = (step: string, fields: Fields) => void;

/**
 * The systemd journal's form of a step: `<step> step=<n> status=ok ms=<ms> <fields>`, `status=failed ... error=<why>`
 * or `status=skipped reason=<why>`; an untimed step (a run's `finally`) has no `ms`.
 */
export function keyValueSink(log: KeyValueLog): StepSink {
  return {
    record(event) {
      const timed = event.ms === undefined ? {} : { ms: event.ms };
      if (event.status === 'ok') log(event.key, { step: event.index, status: 'ok', ...timed, ...(event.fields ?? {}) });
      else if (event.status === 'failed')
        log(event.key, { step: event.index, status: 'failed', ...timed, error: event.reason });
      else log(event.key, { step: event.index, status: 'skipped', reason: event.reason });
    },
  };
}
