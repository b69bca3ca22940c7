import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  checkChartPins,
  checkUserValues,
  imagesValues,
  profilesOf,
} from '../../../../scripts/lib/host/chart/chart-values.ts';

function etc(text: string | undefined, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'chart-etc-'));
  if (text !== undefined) {
    writeFileSync(join(dir, 'chart.yaml'), text);
    chmodSync(join(dir, 'chart.yaml'), mode);
  }
  return dir;
}

describe('/etc/hephaestus/chart.yaml', () => {
  it('is optional, and used when it is a 0600 map of values', async () => {
    expect(await checkUserValues(etc(undefined))).toBeUndefined();
    const dir = etc('worker:\n  replicas: 2\n');
    expect(await checkUserValues(dir)).toBe(join(dir, 'chart.yaml'));
  });

  it.each([
    ['mode 640', 'worker: {}\n', 0o640, /mode 640 must be 600/],
    ['images', 'images:\n  HEPHAESTUS_IMAGE_API: x\n', 0o600, /it sets "images", which only the host writes/],
    ['release', 'release:\n  name: v9.9.9\n', 0o600, /it sets "release"/],
    ['a list', '- a\n', 0o600, /expected a map of Helm values, got a list/],
    ['bad YAML', 'a: [\n', 0o600, /Cannot read/],
  ])('is refused with exit 2 when it has %s', async (_what, text, mode, message) => {
    const error: unknown = await checkUserValues(etc(text, mode)).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2 });
    expect(String((error as Error).message)).toMatch(message);
  });

  it('is refused when it is a symlink (to a file another user controls)', async () => {
    const dir = etc(undefined);
    const target = join(dir, 'elsewhere.yaml');
    writeFileSync(target, 'a: 1\n', { mode: 0o600 });
    symlinkSync(target, join(dir, 'chart.yaml'));
    await expect(checkUserValues(dir)).rejects.toThrow(/is a symlink/);
  });
});

describe('the pins values file', () => {
  it('holds the target and its pins, sorted, and nothing else', () => {
    const text = imagesValues(
      { name: 'v1.2.3', commit: 'c'.repeat(40) },
      { HEPHAESTUS_IMAGE_WORKER: 'w', HEPHAESTUS_IMAGE_API: 'a' },
    );
    expect(parse(text)).toEqual({
      release: { name: 'v1.2.3', commit: 'c'.repeat(40) },
      images: { HEPHAESTUS_IMAGE_API: 'a', HEPHAESTUS_IMAGE_WORKER: 'w' },
    });
    expect(Object.keys((parse(text) as { images: object }).images)).toEqual([
      'HEPHAESTUS_IMAGE_API',
      'HEPHAESTUS_IMAGE_WORKER',
    ]);
  });

  it('checkChartPins refuses a chart image the signed pins do not name', () => {
    expect(() =>
      checkChartPins(['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_X'], { HEPHAESTUS_IMAGE_API: 'a' }, 'v1.0.0'),
    ).toThrow(/the chart pins "HEPHAESTUS_IMAGE_X", which the signed lock does not name/);
    expect(() =>
      checkChartPins(['HEPHAESTUS_IMAGE_API'], { HEPHAESTUS_IMAGE_API: 'a', HEPHAESTUS_IMAGE_DB: 'd' }, 'v1.0.0'),
    ).not.toThrow();
  });

  it('profilesOf keeps the operator order, split on spaces or commas', () => {
    expect(profilesOf(' small, small-16gib  gpu')).toEqual(['small', 'small-16gib', 'gpu']);
  });
});
