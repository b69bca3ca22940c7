import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.ts';

export default defineConfig({
  test: {
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      // @actions/workflow-parser imports its schema JSON without an import attribute: let Vite load it.
      {
        test: {
          name: 'unit',
          globalSetup: ['test/support/preflight.ts'],
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 20_000,
          server: { deps: { inline: ['@actions/workflow-parser'] } },
        },
      },
      {
        test: {
          name: 'e2e',
          globalSetup: ['test/support/preflight.ts'],
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Two files at a time: each makes its own API server, registry, repositories and Compose projects.
          maxWorkers: 2,
        },
      },
    ],
  },
});
