// The unit tests `make mutation` runs against each mutant: every decision module's own tests, nothing that needs
// Docker, git or a network. Listed here rather than in Stryker's `testFiles`, which Stryker 10 honours by running
// module-level (static) mutants without reloading the module, so they would all be reported as survivors
// (stryker-mutator/stryker-js#6144).
import { defineConfig } from 'vitest/config';

export const decisionTests = [
  'test/unit/channel/**/*.test.ts',
  'test/unit/ownership/{cleanup-safety,decide-safety,decide,lease-window}.test.ts',
  'test/unit/signing/**/*.test.ts',
  'test/unit/lock/**/*.test.ts',
  'test/unit/argocd/**/*.test.ts',
  // The pure fingerprint modules' own tests; the git-backed fingerprint suites take a minute per run.
  'test/unit/fingerprint/encoding.test.ts',
  'test/unit/fingerprint/exclude-matcher.test.ts',
  'test/unit/host/compose/database-image*.test.ts',
  'test/unit/host/chart/recovery-plan*.test.ts',
  'test/unit/host/chart/upgrade-plan*.test.ts',
  'test/unit/host/chart/writer-workloads*.test.ts',
  'test/unit/host/chart/chart-values*.test.ts',
  'test/unit/host/chart/chart-archive*.test.ts',
  'test/unit/host/chart/chart-metadata*.test.ts',
  'test/unit/promotion/plan-promotion*.test.ts',
  'test/unit/promotion/parse-duration*.test.ts',
  'test/unit/promotion/verify-provenance*.test.ts',
  'test/unit/pharos/plan-credentials*.test.ts',
  'test/unit/pharos/context-registry*.test.ts',
  'test/unit/pharos/secret-inventory*.test.ts',
  'test/unit/pharos/migrations*.test.ts',
  'test/unit/host/keep-reason*.test.ts',
  'test/unit/host/compose/images-to-remove*.test.ts',
  'test/unit/host/compose/lock-images*.test.ts',
];

export default defineConfig({
  test: {
    projects: [{ test: { name: 'unit', root: import.meta.dirname, include: decisionTests, testTimeout: 20_000 } }],
  },
});
