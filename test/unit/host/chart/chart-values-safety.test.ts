// Decisions of the chart values checks that mutation testing showed no earlier test protected.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChartError } from '../../../../scripts/lib/host/chart/chart-error.ts';
import { checkChartPins, checkUserValues, profilesOf } from '../../../../scripts/lib/host/chart/chart-values.ts';

function etc(text: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'chart-etc-'));
  writeFileSync(join(dir, 'chart.yaml'), text);
  chmodSync(join(dir, 'chart.yaml'), mode);
  return dir;
}

async function refusal(dir: string): Promise<ChartError> {
  const error: unknown = await checkUserValues(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChartError);
  return error as ChartError;
}

describe("checkUserValues(): what the operator's chart.yaml may be", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('refuses with code "values", exit 2, naming the file in the details', async () => {
    const dir = etc('images: {}\n');
    expect(await refusal(dir)).toMatchObject({
      code: 'values',
      exitCode: 2,
      details: { file: join(dir, 'chart.yaml') },
    });
  });

  it('refuses a chart.yaml that is a folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chart-etc-'));
    mkdirSync(join(dir, 'chart.yaml'), { mode: 0o700 });
    expect((await refusal(dir)).message).toBe(`Cannot use "${join(dir, 'chart.yaml')}": it is not a regular file`);
  });

  it('refuses, rather than ignores, a settings folder it cannot look into (only a missing file is allowed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chart-etc-'));
    writeFileSync(join(dir, 'not-a-folder'), '');
    const error = await refusal(join(dir, 'not-a-folder'));
    expect(error.message).toMatch(/^Cannot use ".*not-a-folder\/chart\.yaml": ENOTDIR/);
  });

  it('a reconciler running as root refuses a file another user owns', async () => {
    const dir = etc('worker: {}\n');
    // As root the file is given to uid 1000; as another user it is already that user's.
    if (process.getuid?.() === 0) chownSync(join(dir, 'chart.yaml'), 1000, 1000);
    const owner = statSync(join(dir, 'chart.yaml')).uid;
    vi.spyOn(process, 'getuid').mockReturnValue(0);
    expect((await refusal(dir)).message).toBe(
      `Cannot use "${join(dir, 'chart.yaml')}": owned by uid ${owner}, must be root`,
    );
  });

  it('a reconciler not running as root accepts a file it can read whoever owns it', async () => {
    const dir = etc('worker: {}\n');
    if (process.getuid?.() === 0) chownSync(join(dir, 'chart.yaml'), 1000, 1000);
    vi.spyOn(process, 'getuid').mockReturnValue(1000);
    expect(await checkUserValues(dir)).toBe(join(dir, 'chart.yaml'));
  });

  it('a platform without user ids (no process.getuid) skips the owner check', async () => {
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid');
    Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
    try {
      const dir = etc('worker: {}\n');
      if (getuid?.value?.() === 0) chownSync(join(dir, 'chart.yaml'), 1000, 1000);
      expect(await checkUserValues(dir)).toBe(join(dir, 'chart.yaml'));
    } finally {
      if (getuid !== undefined) Object.defineProperty(process, 'getuid', getuid);
    }
  });

  it('accepts an empty file or one holding only comments (no values)', async () => {
    expect(await checkUserValues(etc(''))).toMatch(/chart\.yaml$/);
    expect(await checkUserValues(etc('# nothing set yet\n'))).toMatch(/chart\.yaml$/);
  });

  it('refuses a file holding a single value instead of a map', async () => {
    expect((await refusal(etc('hello\n'))).message).toMatch(/expected a map of Helm values, got string$/);
    expect((await refusal(etc('42\n'))).message).toMatch(/got number$/);
  });
});

describe('checkChartPins()', () => {
  it('names every image variable the signed channel of a commit does not pin, with code chart-mismatch', () => {
    const run = () =>
      checkChartPins(
        ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_X', 'HEPHAESTUS_IMAGE_Y'],
        { HEPHAESTUS_IMAGE_API: 'a' },
        `commit ${'c'.repeat(12)}`,
      );
    expect(run).toThrow(
      `Cannot apply commit ${'c'.repeat(12)}: the chart pins "HEPHAESTUS_IMAGE_X", "HEPHAESTUS_IMAGE_Y", which the signed channel does not name`,
    );
    expect(run).toThrow(
      expect.objectContaining({
        code: 'chart-mismatch',
        details: { missing: ['HEPHAESTUS_IMAGE_X', 'HEPHAESTUS_IMAGE_Y'] },
      }),
    );
  });
});

describe('profilesOf()', () => {
  it('never yields an empty profile, however the names are separated', () => {
    expect(profilesOf('small,,  gpu ,')).toEqual(['small', 'gpu']);
    expect(profilesOf('')).toEqual([]);
  });
});
