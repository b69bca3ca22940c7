import { lazyStep } from '../../steps/step.ts';
import { emptyState } from '../tick-context.ts';
import { readState } from '../steps-decide.ts';
import type { TickApplier } from '../tick-applier.ts';
import type { TickStep } from '../tick-context.ts';
import type { ChartTickState } from './chart-target.ts';

/**
 * A chart host's tick: the shared read, decide, record, adopt and prune around the chart applier's own steps. Its
 * prune removes no image: the kubelet's image garbage collection does.
 */
export const CHART_TICK_STEPS: readonly TickStep<ChartTickState>[] = [
  { name: 'read', run: readState },
  lazyStep('adopt-pending', async () => (await import('../adopt-tooling.ts')).completeAdoption),
  lazyStep('decide', async () => (await import('./chart-decide.ts')).decideChart),
  lazyStep('prepare', async () => (await import('./chart-prepare.ts')).prepareChart),
  lazyStep('values', async () => (await import('./chart-apply.ts')).chartValues),
  lazyStep('recover', async () => (await import('./chart-apply.ts')).recoverRelease),
  lazyStep('upgrade', async () => (await import('./chart-apply.ts')).upgradeChart),
  lazyStep('record', async () => (await import('../record-applied.ts')).recordApplied),
  lazyStep('adopt', async () => (await import('../adopt-tooling.ts')).adoptTooling),
  lazyStep('prune', async () => (await import('../prune-releases.ts')).pruneReleases()),
];

export const chartApplier: TickApplier<ChartTickState> = {
  name: 'chart',
  steps: CHART_TICK_STEPS,
  state: emptyState,
};
