// A fresh clone has no timing cache, so vitest would start files by size: the longest end-to-end files (CI durations
// with two workers) start first instead, so that both workers finish together rather than one running the last alone.
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

const SLOW_FIRST = [
  'host-crash',
  'host-database',
  'host-trust',
  'host-disk',
  'devbox-recovery',
  'host-failures',
  'host-apply',
  'devbox-pharos',
  'devbox-deploy',
];

const rank = (spec: TestSpecification): number => {
  const index = SLOW_FIRST.findIndex((name) => spec.moduleId.endsWith(`/test/e2e/${name}.test.ts`));
  return index < 0 ? SLOW_FIRST.length : index;
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
