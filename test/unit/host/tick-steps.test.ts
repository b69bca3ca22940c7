import { describe, expect, it } from 'vitest';
import { CHART_TICK_STEPS } from '../../../scripts/lib/host/chart/chart-applier.ts';
import { COMPOSE_TICK_STEPS } from '../../../scripts/lib/host/compose/compose-applier.ts';

describe('the tick: the shared steps around each applier’s own, in the journal’s order', () => {
  it('a Compose host: read, rebuild, adopt-pending, decide, prepare, render, identify-worker, pull, migrate, stop-worker, up, record, adopt, prune', () => {
    expect(COMPOSE_TICK_STEPS.map((s) => s.name)).toEqual([
      'read',
      'rebuild',
      'adopt-pending',
      'decide',
      'prepare',
      'render',
      'identify-worker',
      'pull',
      'migrate',
      'stop-worker',
      'up',
      'record',
      'adopt',
      'prune',
    ]);
  });

  it('a chart host: read, rebuild, adopt-pending, decide, prepare, values, recover, upgrade, record, adopt, prune', () => {
    expect(CHART_TICK_STEPS.map((s) => s.name)).toEqual([
      'read',
      'rebuild',
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
