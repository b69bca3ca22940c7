import { describe, expect, it } from 'vitest';
import {
  durationSeconds,
  imageVariableOf,
  parseRenderedStack,
} from '../../../../scripts/lib/host/compose/stack-config.ts';

describe('parseRenderedStack()', () => {
  it('reads roles from map labels (v1 and v2 render maps) and list labels, and grace periods', () => {
    const text = [
      'services:',
      '  worker:',
      '    image: r/w@sha256:' + 'a'.repeat(64),
      '    labels: {hephaestus.role: worker}',
      '    stop_grace_period: 1m30s',
      '  migrate:',
      '    image: r/m@sha256:' + 'b'.repeat(64),
      '    labels: ["hephaestus.role=migration", "other=x"]',
      '  api:',
      '    image: r/a@sha256:' + 'c'.repeat(64),
    ].join('\n');
    expect(parseRenderedStack(text, 'rendered')).toEqual([
      { name: 'api', image: `r/a@sha256:${'c'.repeat(64)}`, role: undefined, stopGraceSeconds: 10 },
      { name: 'migrate', image: `r/m@sha256:${'b'.repeat(64)}`, role: 'migration', stopGraceSeconds: 10 },
      { name: 'worker', image: `r/w@sha256:${'a'.repeat(64)}`, role: 'worker', stopGraceSeconds: 90 },
    ]);
  });
  it('names the file and field of output it cannot read', () => {
    expect(() => parseRenderedStack('services: [1, 2]', 'compose.app.yaml (rendered)')).toThrow(
      /compose\.app\.yaml \(rendered\).*services/s,
    );
    expect(() => parseRenderedStack('services: {a: [', 'x')).toThrow(/Cannot read rendered x/);
  });
});

describe('durationSeconds() and imageVariableOf()', () => {
  it('reads Compose durations', () => {
    expect([
      durationSeconds('3s'),
      durationSeconds('1m'),
      durationSeconds('1h2m3s'),
      durationSeconds('500ms'),
      durationSeconds(7),
      durationSeconds(undefined),
    ]).toEqual([3, 60, 3723, 0.5, 7, 10]);
  });
  it('names the variable only for a bare ${HEPHAESTUS_IMAGE_*} or $HEPHAESTUS_IMAGE_*', () => {
    expect(
      ['${HEPHAESTUS_IMAGE_API}', '$HEPHAESTUS_IMAGE_API', '${HEPHAESTUS_IMAGE_API:-x}', '${OTHER}', 'api:1', 3].map(
        imageVariableOf,
      ),
    ).toEqual(['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_API', undefined, undefined, undefined, undefined]);
  });
});
