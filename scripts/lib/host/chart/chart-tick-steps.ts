import { readState } from '../steps-decide.ts';
import type { Step } from '../tick-context.ts';

function lazy(load: () => Promise<Step>): Step {
  let step: Promise<Step> | undefined;
  return async (ctx, state) => (await (step ??= load()))(ctx, state);
}

/** A chart host's tick: the shared read, decide, record, adopt and prune around the chart applier's own steps. */
export const CHART_TICK_STEPS: readonly (readonly [string, Step])[] = [
  ['read', readState],
  ['adopt-pending', lazy(async () => (await import('../adopt-tooling.ts')).completeAdoption)],
  ['decide', lazy(async () => (await import('./chart-decide.ts')).decideChart)],
  ['prepare', lazy(async () => (await import('./chart-prepare.ts')).prepareChart)],
  ['values', lazy(async () => (await import('./chart-apply.ts')).chartValues)],
  ['recover', lazy(async () => (await import('./chart-apply.ts')).recoverRelease)],
  ['upgrade', lazy(async () => (await import('./chart-apply.ts')).upgradeChart)],
  ['record', lazy(async () => (await import('../record-applied.ts')).recordApplied)],
  ['adopt', lazy(async () => (await import('../adopt-tooling.ts')).adoptTooling)],
  ['prune', lazy(async () => (await import('../prune-releases.ts')).pruneReleases)],
];
