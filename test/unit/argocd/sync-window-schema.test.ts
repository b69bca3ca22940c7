import { describe, expect, it } from 'vitest';
import {
  ArgoCdError,
  appProjectSchema,
  parseArgoObject,
  parseGoDuration,
  syncWindowSchema,
} from '../../../scripts/lib/argocd/index.ts';

const valid = {
  kind: 'deny',
  schedule: '34 12 10 3 *',
  duration: '720m',
  applications: ['pharos'],
  manualSync: false,
  timeZone: 'UTC',
};

describe('syncWindowSchema accepts what Argo CD accepts', () => {
  it('accepts a lease window and keeps unknown future fields', () => {
    expect(syncWindowSchema.parse({ ...valid, futureField: 1 })).toEqual({ ...valid, futureField: 1 });
  });

  for (const schedule of [
    '0 12 * * 1-5',
    '*/15 * * * *',
    '0 0 1 JAN *',
    '0 22 * * SUN',
    '0 0 ? * 0',
    '5,10 1-3 * * *',
  ]) {
    it(`accepts schedule "${schedule}"`, () => {
      expect(syncWindowSchema.safeParse({ ...valid, schedule }).success).toBe(true);
    });
  }

  for (const schedule of [
    '@daily',
    '0 0 * * * *',
    '* * * *',
    '0 0 L * *',
    '0 0 * * 7',
    '0 0 * * 5#2',
    'H * * * *',
    '61 * * * *',
    '',
  ]) {
    it(`refuses schedule "${schedule}" as robfig/cron does`, () => {
      const result = syncWindowSchema.safeParse({ ...valid, schedule });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['schedule']);
    });
  }

  for (const duration of ['1d', '10', '', 'h', '1h 30m']) {
    it(`refuses duration "${duration}"`, () => {
      expect(syncWindowSchema.safeParse({ ...valid, duration }).success).toBe(false);
    });
  }

  it('refuses an unknown kind and a description over 255 characters', () => {
    expect(syncWindowSchema.safeParse({ ...valid, kind: 'block' }).success).toBe(false);
    expect(syncWindowSchema.safeParse({ ...valid, description: 'x'.repeat(256) }).success).toBe(false);
    expect(syncWindowSchema.safeParse({ ...valid, description: 'x'.repeat(255) }).success).toBe(true);
  });

  it('parseArgoObject names the object, the field path and the value', () => {
    const project = { metadata: { name: 'pharos' }, spec: { syncWindows: [valid, { ...valid, duration: '1d' }] } };
    const error = (() => {
      try {
        parseArgoObject(appProjectSchema, project, 'AppProject argocd/pharos');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ArgoCdError);
    expect((error as Error).message).toContain(
      'AppProject argocd/pharos: spec.syncWindows[1].duration: invalid Go duration',
    );
    expect((error as Error).message).toContain('(value "1d")');
  });
});

describe('parseGoDuration() reads Go durations', () => {
  const table: [string, number | undefined][] = [
    ['12h', 43_200_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['.5m', 30_000],
    ['-30m', -1_800_000],
    ['300ms', 300],
    ['1m30s', 90_000],
    ['0', 0],
    ['', undefined],
    ['1d', undefined],
    ['10', undefined],
    ['m', undefined],
  ];
  for (const [text, ms] of table) {
    it(`"${text}" is ${ms === undefined ? 'invalid' : `${ms} ms`}`, () => {
      expect(parseGoDuration(text)).toBe(ms);
    });
  }
});
