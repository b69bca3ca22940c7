// Mutation testing of the safety decisions (`make mutation`): the pure code that decides what a host, a lease or a
// verifier accepts. Each line of `mutate` is one decision module or folder; add a new decision module as one line.
// @ts-check

/** The modules whose every decision-changing mutant a unit test must kill. */
export const safetyDecisions = [
  'scripts/lib/channel/**/*.ts',
  // The lease's decisions (the rest of ownership/ reads and writes the cluster).
  'scripts/lib/ownership/decide-{acquire,cleanup,release,renew}.ts',
  'scripts/lib/ownership/lease-{error,record,window}.ts',
  'scripts/lib/signing/verify-bundle.ts',
  'scripts/lib/lock/**/*.ts',
  'scripts/lib/argocd/can-sync.ts',
  'scripts/lib/argocd/window-active.ts',
  'scripts/lib/argocd/window-matches.ts',
  'scripts/lib/fingerprint/encoding.ts',
  'scripts/lib/fingerprint/exclude-matcher.ts',
  'scripts/lib/catalogue/compare-bytewise.ts',
  'scripts/lib/fingerprint/file-mode.ts',
  'scripts/lib/host/compose/database-image.ts',
  // Chart hosts, promotion, pharos credentials and contexts, and disk pruning's kept set.
  'scripts/lib/host/chart/recovery-plan.ts',
  'scripts/lib/host/chart/upgrade-plan.ts',
  'scripts/lib/host/chart/writer-workloads.ts',
  'scripts/lib/host/chart/chart-values.ts',
  'scripts/lib/host/chart/chart-metadata.ts',
  'scripts/lib/promotion/plan-promotion.ts',
  'scripts/lib/promotion/parse-duration.ts',
  'scripts/lib/promotion/verify-provenance.ts',
  'scripts/lib/pharos/plan-credentials.ts',
  'scripts/lib/pharos/context-registry.ts',
  'scripts/lib/pharos/secret-inventory.ts',
  'scripts/lib/pharos/migrations.ts',
  'scripts/lib/host/keep-reason.ts',
  'scripts/lib/host/compose/images-to-remove.ts',
  'scripts/lib/host/compose/lock-images.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // The unit tests of the decision modules only (the list is in that config); `related` runs, for each mutated file,
  // just the tests that import it.
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // index.ts files only re-export: nothing in them decides.
  mutate: [...safetyDecisions, '!scripts/lib/**/index.ts'],
  coverageAnalysis: 'perTest',
  // Two shared cores: one mutant per core.
  concurrency: 2,
  timeoutMS: 10_000,
  // Type errors a mutant introduces are not checked (no checker): vitest transpiles without types, so such a mutant
  // runs and is killed or survives on behaviour, which is what the score is about.
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  clearTextReporter: {
    allowColor: false,
    allowEmojis: false,
    logTests: false,
    reportScoreTable: true,
    reportMutants: true,
  },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The per-file floor is checked by test/mutation/check-scores.ts; this is the whole run's.
  thresholds: { high: 100, low: 95, break: 95 },
  // Reruns only the mutants whose code or tests changed since the last run (`--force` reruns all); the file is a
  // local cache, so a fresh clone runs every mutant.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // The sandbox is a copy of the checkout (tests read docs, deploy and examples too) without caches and reports.
  ignorePatterns: ['.local', 'reports', '.stryker-tmp'],
};
