import { describe, expect, it } from 'vitest';
import { ChartError } from '../../../../scripts/lib/host/chart/chart-error.ts';
import { summarizeChart } from '../../../../scripts/lib/host/chart/chart-metadata.ts';

const CHART = 'apiVersion: v2\nname: hephaestus\nversion: 1.2.3\n';
const files = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]));

function refusal(entries: Record<string, string>): ChartError {
  try {
    summarizeChart(files(entries), 'v1.2.3');
  } catch (error) {
    expect(error).toBeInstanceOf(ChartError);
    expect(error).toMatchObject({ code: 'archive' });
    return error as ChartError;
  }
  throw new Error('expected summarizeChart() to refuse');
}

describe('summarizeChart(): what a host reads of a chart', () => {
  it('lists image keys and profiles sorted, leaving nested profile folders and other files out', () => {
    const summary = summarizeChart(
      files({
        'hephaestus/Chart.yaml': CHART,
        'hephaestus/values.yaml':
          'images:\n  HEPHAESTUS_IMAGE_WORKER: ""\n  HEPHAESTUS_IMAGE_API: ""\nserver:\n  replicas: 1\n',
        'hephaestus/profiles/small.yaml': '',
        'hephaestus/profiles/large.yaml': '',
        'hephaestus/profiles/README.md': '',
        'hephaestus/profiles/old/tiny.yaml': '',
        'hephaestus/templates/profiles/x.yaml': '',
      }),
      'v1.2.3',
    );
    expect(summary).toEqual({
      metadata: { apiVersion: 'v2', name: 'hephaestus', version: '1.2.3' },
      imageVariables: ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_WORKER'],
      profiles: ['large', 'small'],
    });
  });

  it('reads a chart without values.yaml, or with an empty one, as pinning no image', () => {
    expect(summarizeChart(files({ 'hephaestus/Chart.yaml': CHART }), 't').imageVariables).toEqual([]);
    expect(
      summarizeChart(files({ 'hephaestus/Chart.yaml': CHART, 'hephaestus/values.yaml': '' }), 't').imageVariables,
    ).toEqual([]);
  });

  it("reads the top Chart.yaml, never a subchart's or a stray copy", () => {
    const summary = summarizeChart(
      files({
        'hephaestus/charts/db/Chart.yaml': 'apiVersion: v2\nname: db\nversion: 9.9.9\n',
        'hephaestus/Chart.yaml.orig': 'x: [',
        'hephaestus/Chart.yaml': CHART,
      }),
      't',
    );
    expect(summary.metadata.name).toBe('hephaestus');
  });

  it('refuses a package without <name>/Chart.yaml', () => {
    expect(refusal({ 'Chart.yaml': CHART, 'hephaestus/charts/db/Chart.yaml': CHART }).message).toBe(
      'Cannot read chart v1.2.3: no <name>/Chart.yaml',
    );
  });

  it('refuses a Chart.yaml that is not YAML, naming the chart and the file', () => {
    const error = refusal({ 'hephaestus/Chart.yaml': 'name: [' });
    expect(error.message).toMatch(/^Cannot read v1\.2\.3 hephaestus\/Chart\.yaml: /);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it.each([
    ['Helm chart API v1', 'apiVersion: v1\nname: hephaestus\nversion: 1.2.3\n', 'apiVersion'],
    ['no version', 'apiVersion: v2\nname: hephaestus\n', 'version'],
    ['an empty version', 'apiVersion: v2\nname: hephaestus\nversion: ""\n', 'version'],
    ['an upper-case name', 'apiVersion: v2\nname: Hephaestus\nversion: 1.2.3\n', 'expected a chart name'],
    [
      'a name with a trailing character Helm refuses',
      'apiVersion: v2\nname: hephaestus!\nversion: 1.2.3\n',
      'expected a chart name',
    ],
    ['a name over 53 characters', `apiVersion: v2\nname: ${'h'.repeat(54)}\nversion: 1.2.3\n`, 'expected a chart name'],
  ])('refuses a Chart.yaml with %s, naming the field', (_what, text, field) => {
    const error = refusal({ 'hephaestus/Chart.yaml': text });
    expect(error.message).toMatch(/^Cannot read chart v1\.2\.3:\nhephaestus\/Chart\.yaml: /);
    expect(error.message).toContain(field);
  });

  it('names every problem of Chart.yaml and of values.yaml on a line of its own', () => {
    expect(
      refusal({ 'hephaestus/Chart.yaml': 'apiVersion: v1\nname: Hephaestus\nversion: 1.2.3\n' }).message.split('\n'),
    ).toHaveLength(3);
    expect(
      refusal({
        'hephaestus/Chart.yaml': CHART,
        'hephaestus/values.yaml': 'images:\n  A: ""\n  B: ""\n',
      }).message.split('\n'),
    ).toHaveLength(3);
  });

  it('refuses a values.yaml that is not YAML, naming it', () => {
    expect(refusal({ 'hephaestus/Chart.yaml': CHART, 'hephaestus/values.yaml': 'images: [' }).message).toMatch(
      /^Cannot read v1\.2\.3 hephaestus\/values\.yaml: /,
    );
  });

  it.each([['X_HEPHAESTUS_IMAGE_API'], ['HEPHAESTUS_IMAGE_api'], ['HEPHAESTUS_IMAGE_'], ['HEPHAESTUS_IMAGE_API-2']])(
    'refuses the image key %s in values.yaml',
    (key) => {
      const error = refusal({ 'hephaestus/Chart.yaml': CHART, 'hephaestus/values.yaml': `images:\n  ${key}: ""\n` });
      expect(error.message).toMatch(/^Cannot read chart v1\.2\.3:\nhephaestus\/values\.yaml: /);
      expect(error.message).toContain('expected a HEPHAESTUS_IMAGE_* key');
    },
  );
});
