import { describe, expect, it } from 'vitest';
import { chooseImages } from '../../../scripts/lib/takeover/choose-images.ts';
import type { PlanRow } from '../../../scripts/lib/takeover/plan-takeover.ts';

const row = (image: string, status: PlanRow['status'], runtime?: string, reasons: string[] = []): PlanRow => ({
  image,
  application: 'pharos',
  status,
  runtime,
  fingerprint: 'f',
  deployed: 'd',
  reasons,
});
const rows = [
  row('api', 'candidate', 'docker'),
  row('worker', 'in-cluster', 'docker'),
  row('migrate', 'needs-reconcile', undefined, ['no takeover runtime (actor or migration)']),
];
const runtimes = ['native', 'docker'];

describe('chooseImages()', () => {
  it('takes every candidate when none is named, the named ones otherwise (also unchanged ones)', () => {
    expect(chooseImages(rows, [], runtimes)).toEqual(['api']);
    expect(chooseImages(rows, ['worker'], runtimes)).toEqual(['worker']);
  });

  it('refuses nothing to take over, an unknown image and one without a takeover runtime', () => {
    expect(() => chooseImages([row('worker', 'in-cluster', 'docker')], [], runtimes)).toThrow(
      'no image differs from the receipt and has a takeover runtime',
    );
    expect(() => chooseImages(rows, ['nope'], runtimes)).toThrow('the catalogue has no such entry');
    expect(() => chooseImages(rows, ['migrate'], runtimes)).toThrow(
      'Cannot take over image "migrate": no takeover runtime (actor or migration); it needs make reconcile',
    );
  });
});
