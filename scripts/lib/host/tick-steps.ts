import { lazyStep } from '../steps/step.ts';
import type { PruneMore } from './prune-releases.ts';
import { fetchAndDecide, readState } from './steps-decide.ts';
import type { TickState, TickStep } from './tick-context.ts';

/** What an applier brings to the tick: its decision (default the shared one), its own steps, what its prune adds. */
export interface ApplierSteps<S extends TickState> {
  readonly decide?: TickStep<S>;
  readonly apply: readonly TickStep<S>[];
  /** Loaded with the prune step, only after a recorded apply. */
  readonly pruneMore?: () => Promise<PruneMore>;
}

/**
 * A tick in the seed's order: read, rebuild, adopt-pending, decide, the applier's steps, record, adopt, prune. The journal
 * numbers them from 1; each module loads on first use, so an unchanged tick loads none of the applier's.
 */
export function tickSteps<S extends TickState>(applier: ApplierSteps<S>): readonly TickStep<S>[] {
  return [
    { name: 'read', run: readState },
    lazyStep('rebuild', async () => (await import('./rebuild-worktrees.ts')).rebuildWorktrees),
    lazyStep('adopt-pending', async () => (await import('./adopt-tooling.ts')).completeAdoption),
    applier.decide ?? { name: 'decide', run: fetchAndDecide },
    ...applier.apply,
    lazyStep('record', async () => (await import('./record-applied.ts')).recordApplied),
    lazyStep('adopt', async () => (await import('./adopt-tooling.ts')).adoptTooling),
    lazyStep('prune', async () => (await import('./prune-releases.ts')).pruneReleases(await applier.pruneMore?.())),
  ];
}
