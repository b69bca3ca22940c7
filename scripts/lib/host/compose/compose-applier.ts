import { lazyStep } from '../../steps/step.ts';
import type { TickApplier } from '../tick-applier.ts';
import { tickSteps } from '../tick-steps.ts';
import { emptyComposeState } from './compose-state.ts';
import type { ComposeTickState } from './compose-state.ts';

/** A Compose host's tick: the shared decision, then prepare, render, identify-worker, pull, migrate, stop-worker and up. */
export const COMPOSE_TICK_STEPS = tickSteps<ComposeTickState>({
  apply: [
    lazyStep('prepare', async () => (await import('./prepare-release.ts')).prepareRelease),
    lazyStep('render', async () => (await import('./render-stacks.ts')).renderStacks),
    // The running worker is identified before anything of the new release is pulled or migrated.
    lazyStep('identify-worker', async () => (await import('./identify-worker.ts')).identifyWorker),
    lazyStep('pull', async () => (await import('./pull-images.ts')).pullImages),
    lazyStep('migrate', async () => (await import('./run-migrations.ts')).runMigrations),
    lazyStep('stop-worker', async () => (await import('./stop-worker.ts')).stopWorker),
    lazyStep('up', async () => (await import('./up-stacks.ts')).upStacks),
  ],
  // After the release folders, the images neither the applied nor the previous release names.
  pruneMore: async () => (await import('./prune-images.ts')).pruneReleaseImages,
});

export const composeApplier: TickApplier<ComposeTickState> = {
  name: 'compose',
  steps: COMPOSE_TICK_STEPS,
  state: emptyComposeState,
  services: async (ctx) => (await import('./compose-services.ts')).composeServices(ctx),
};
