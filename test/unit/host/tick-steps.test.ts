import { describe, expect, it } from 'vitest';
import { CHART_TICK_STEPS } from '../../../scripts/lib/host/chart/chart-applier.ts';
import { COMPOSE_TICK_STEPS } from '../../../scripts/lib/host/compose/compose-applier.ts';

describe('the tick: the shared steps around each applier’s own, in the journal’s order', () => {
  it('a Compose host: read, adopt-pending, decide, prepare, render, pull, migrate, stop-worker, up, record, adopt, prune', () => {
    expect(COMPOSE_TICK_STEPS.map((s) => s.name)).toEqual([
      'read',
      'adopt-pending',
      'decide',
      'prepare',
      'render',
      'pull',
      'migrate',
      'stop-worker',
      'up',
      'record',
      'adopt',
      'prune',
    ]);
  });

  it('a chart host: read, adopt-pending, decide, prepare, values, recover, upgrade, record, adopt, prune', () => {
    expect(CHART_TICK_STEPS.map((s) => s.name)).toEqual([
      'read',
      'adopt-pending',
      'decide',
      'prepare',
      'values',
      'recover',
      'upgrade',
      'record',
      'adopt',
      'prune',
    ]);
  });
});
