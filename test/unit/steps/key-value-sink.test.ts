import { describe, expect, it } from 'vitest';
import { keyValueLine, keyValueSink, runSteps } from '../../../scripts/lib/steps/index.ts';
import type { Step } from '../../../scripts/lib/steps/index.ts';

const lines = () => {
  const out: string[] = [];
  return {
    out,
    log: (step: string, fields: Readonly<Record<string, unknown>>) => out.push(keyValueLine('tick', step, fields)),
  };
};

describe('keyValueLine(): the line systemd journals', () => {
  it('plain values stay bare, anything else is JSON-quoted', () => {
    expect(
      keyValueLine('reconcile-deployment', 'decide', { decision: 'apply', n: 3, msg: 'two words', ok: true }),
    ).toBe('reconcile-deployment: decide decision=apply n=3 msg="two words" ok=true\n');
    expect(keyValueLine('p', 's', { ref: 'ghcr.io/o/i@sha256:ab+c-d_e', list: ['a'] })).toBe(
      'p: s ref=ghcr.io/o/i@sha256:ab+c-d_e list=["a"]\n',
    );
  });
});

describe('keyValueSink(): one line per step on stderr', () => {
  it('ok: position, status and duration first, then the fields; a failure: its error; a skip: its reason', () => {
    const { out, log } = lines();
    const sink = keyValueSink(log);
    sink.record({ key: 'read', index: 1, status: 'ok', ms: 4, fields: { applied: 'v1.0.0' } });
    sink.record({ key: 'pull', index: 6, status: 'failed', ms: 12, reason: '[pull-failed] no such image' });
    sink.record({ key: 'mark', index: 2, status: 'skipped', reason: 'completed by an earlier run' });
    expect(out).toEqual([
      'tick: read step=1 status=ok ms=4 applied=v1.0.0\n',
      'tick: pull step=6 status=failed ms=12 error="[pull-failed] no such image"\n',
      'tick: mark step=2 status=skipped reason="completed by an earlier run"\n',
    ]);
  });

  it("an untimed step (a run's finally, like the host's metrics) has no ms", () => {
    const { out, log } = lines();
    const sink = keyValueSink(log);
    sink.record({ key: 'metrics', index: 13, status: 'ok', fields: { file: '/m.prom', result: 'noop', exit: 0 } });
    sink.record({ key: 'metrics', index: 13, status: 'failed', reason: 'EACCES' });
    expect(out).toEqual([
      'tick: metrics step=13 status=ok file=/m.prom result=noop exit=0\n',
      'tick: metrics step=13 status=failed error=EACCES\n',
    ]);
  });

  it("through the runner: the host tick's lines, numbered from 1", async () => {
    const { out, log } = lines();
    const steps: Step<unknown, unknown, string>[] = [
      { name: 'read', run: async () => ({ next: true, fields: { applied: 'none' } }) },
      { name: 'decide', run: async () => ({ next: false, outcome: 'noop', fields: { decision: 'noop' } }) },
    ];
    await runSteps({}, {}, { steps, journal: keyValueSink(log) });
    expect(out.map((l) => l.replace(/ms=\d+/, 'ms=N'))).toEqual([
      'tick: read step=1 status=ok ms=N applied=none\n',
      'tick: decide step=2 status=ok ms=N decision=noop\n',
    ]);
  });
});
