import { lazyStep } from '../../steps/step.ts';
import { fetchAndDecide, readState } from '../steps-decide.ts';
import type { TickApplier } from '../tick-applier.ts';
import type { TickStep } from '../tick-context.ts';
import { emptyComposeState } from './compose-state.ts';
import type { ComposeTickState } from './compose-state.ts';

/** A Compose host's tick in the seed's order: the shared steps around the applier's own; each module loads on first use. */
export const COMPOSE_TICK_STEPS: readonly TickStep<ComposeTickState>[] = [
  { name: 'read', run: readState },
  lazyStep('adopt-pending', async () => (await import('../adopt-tooling.ts')).completeAdoption),
  { name: 'decide', run: fetchAndDecide },
  lazyStep('prepare', async () => (await import('./prepare-release.ts')).prepareRelease),
  lazyStep('render', async () => (await import('./render-stacks.ts')).renderStacks),
  lazyStep('pull', async () => (await import('./pull-images.ts')).pullImages),
  lazyStep('migrate', async () => (await import('./run-migrations.ts')).runMigrations),
  lazyStep('stop-worker', async () => (await import('./stop-worker.ts')).stopWorker),
  lazyStep('up', async () => (await import('./up-stacks.ts')).upStacks),
  lazyStep('record', async () => (await import('../record-applied.ts')).recordApplied),
  lazyStep('adopt', async () => (await import('../adopt-tooling.ts')).adoptTooling),
  lazyStep('prune', async () => {
    const [{ pruneReleases }, { pruneReleaseImages }] = await Promise.all([
      import('../prune-releases.ts'),
      import('./prune-images.ts'),
    ]);
    return pruneReleases(pruneReleaseImages);
  }),
];

export const composeApplier: TickApplier<ComposeTickState> = {
  name: 'compose',
  steps: COMPOSE_TICK_STEPS,
  state: emptyComposeState,
  services: async (ctx) => (await import('./compose-services.ts')).composeServices(ctx),
};
