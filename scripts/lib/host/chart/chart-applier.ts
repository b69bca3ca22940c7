import { lazyStep } from '../../steps/step.ts';
import { emptyState } from '../tick-context.ts';
import type { TickApplier } from '../tick-applier.ts';
import { tickSteps } from '../tick-steps.ts';
import type { ChartTickState } from './chart-target.ts';

/**
 * A chart host's tick: its own decision (does Helm run the applied target?), then prepare, values, recover and
 * upgrade. Its prune removes no image: the kubelet's image garbage collection does.
 */
export const CHART_TICK_STEPS = tickSteps<ChartTickState>({
  decide: lazyStep('decide', async () => (await import('./chart-decide.ts')).decideChart),
  apply: [
    lazyStep('prepare', async () => (await import('./chart-prepare.ts')).prepareChart),
    lazyStep('values', async () => (await import('./chart-apply.ts')).chartValues),
    lazyStep('recover', async () => (await import('./chart-apply.ts')).recoverRelease),
    lazyStep('upgrade', async () => (await import('./chart-apply.ts')).upgradeChart),
  ],
});

export const chartApplier: TickApplier<ChartTickState> = {
  name: 'chart',
  steps: CHART_TICK_STEPS,
  state: emptyState,
};
