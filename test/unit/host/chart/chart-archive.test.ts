import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readChartArchive, writeChartArchive } from '../../../../scripts/lib/host/chart/chart-archive.ts';
import { summarizeChart } from '../../../../scripts/lib/host/chart/chart-metadata.ts';
import { packageChart } from '../../../../scripts/lib/host/chart/package-chart.ts';

const chart = new Map([
  ['hephaestus/Chart.yaml', Buffer.from('apiVersion: v2\nname: hephaestus\nversion: 0.0.0-dev\n')],
  ['hephaestus/values.yaml', Buffer.from('images:\n  HEPHAESTUS_IMAGE_API: ""\n')],
  ['hephaestus/profiles/small.yaml', Buffer.from('a: 1\n')],
  ['hephaestus/templates/deep/' + 'x'.repeat(90) + '.yaml', Buffer.from('kind: ConfigMap\n')],
]);

/** One ustar entry of the given type, for hostile archives. */
function entry(name: string, type: string, body = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  h.write('        ', 148);
  h.write(type, 156);
  h.write('ustar\0', 257);
  const sum = h.reduce((a, b) => a + b, 0);
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return Buffer.concat([h, body, Buffer.alloc((512 - (body.length % 512)) % 512)]);
}

describe('chart packages', () => {
  it('round-trip byte for byte, and the same chart always packages to the same bytes (a stable digest)', () => {
    const bytes = writeChartArchive(chart);
    expect(readChartArchive(bytes, 't')).toEqual(chart);
    expect(Buffer.compare(writeChartArchive(new Map([...chart].reverse())), bytes)).toBe(0);
  });

  it('packageChart sets the release version in Chart.yaml; summarizeChart reads name, version, image keys and profiles', () => {
    const { archive, name } = packageChart(chart, '1.2.3');
    expect(name).toBe('hephaestus');
    const summary = summarizeChart(readChartArchive(archive, 't'), 't');
    expect(summary).toMatchObject({
      metadata: { name: 'hephaestus', version: '1.2.3' },
      imageVariables: ['HEPHAESTUS_IMAGE_API'],
      profiles: ['small'],
    });
  });

  it('refuses a symlink, a path that climbs out, and a stream that is not gzip', () => {
    const link = gzipSync(Buffer.concat([entry('hephaestus/Chart.yaml', '2'), Buffer.alloc(1024)]));
    expect(() => readChartArchive(link, 'evil.tgz')).toThrow(
      /entry "hephaestus\/Chart.yaml" is not a regular file \(type "2"\)/,
    );
    const climb = gzipSync(Buffer.concat([entry('hephaestus/../../etc/x', '0', Buffer.from('x')), Buffer.alloc(1024)]));
    expect(() => readChartArchive(climb, 'evil.tgz')).toThrow(/leaves the chart folder/);
    expect(() => readChartArchive(Buffer.from('not gzip'), 'evil.tgz')).toThrow(/not a gzip stream/);
  });

  it('refuses values that pin an image under a key that is not a HEPHAESTUS_IMAGE_* variable', () => {
    const bad = new Map(chart);
    bad.set('hephaestus/values.yaml', Buffer.from('images:\n  api: x\n'));
    expect(() => summarizeChart(bad, 't')).toThrow(/HEPHAESTUS_IMAGE_/);
  });
});

describe('chartFilesFromDir()', () => {
  it('reads a chart folder as <name>/<path> and refuses a symlink in it (a commit tree pointing outside itself)', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, symlinkSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { chartFilesFromDir } = await import('../../../../scripts/lib/host/chart/package-chart.ts');
    const dir = join(mkdtempSync(join(tmpdir(), 'chart-dir-')), 'hephaestus');
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: hephaestus\nversion: 1.0.0\n');
    writeFileSync(join(dir, 'templates', 'a.yaml'), 'kind: ConfigMap\n');
    expect([...(await chartFilesFromDir(dir)).keys()]).toEqual([
      'hephaestus/Chart.yaml',
      'hephaestus/templates/a.yaml',
    ]);
    symlinkSync('/etc/passwd', join(dir, 'templates', 'b.yaml'));
    await expect(chartFilesFromDir(dir)).rejects.toThrow(/"templates\/b.yaml" is a symlink/);
  });
});
