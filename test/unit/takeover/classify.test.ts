import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../scripts/lib/catalogue/parse-catalogue.ts';
import { classify } from '../../../scripts/lib/takeover/index.ts';

const catalogue = parseCatalogue(
  `platform: linux/amd64
images:
  api: {image: pharos/api, application: pharos, context: ., dockerfile: api/Dockerfile, inputs: [api], takeover: {runtime: native, command: [sh, api/run.sh]}}
  worker: {image: pharos/worker, application: pharos, context: ., dockerfile: worker/Dockerfile, inputs: [worker]}
  web: {image: pharos/web, application: web, context: ., dockerfile: web/Dockerfile, inputs: [web], takeover: {runtime: docker}}
  new: {image: pharos/new, application: web, context: ., dockerfile: new/Dockerfile, inputs: [new], takeover: {runtime: native, command: [x]}}
`,
  'images.yaml',
);
const fp = (c: string) => c.repeat(64);
const ref = (n: string) => `registry.test:5000/${n}@sha256:${fp('e')}`;
const receipt = {
  schema: 1 as const,
  commit: 'c'.repeat(40),
  delivered: '2026-10-14T12:00:00Z',
  images: {
    api: { fingerprint: fp('a'), reference: ref('api') },
    worker: { fingerprint: fp('b'), reference: ref('worker') },
    web: { fingerprint: fp('d'), reference: ref('web') },
  },
};
const row = (rows: ReturnType<typeof classify>, image: string) => rows.find((r) => r.image === image);

describe('classify()', () => {
  it('an image whose working-tree fingerprint equals the receipt runs in the cluster', () => {
    const rows = classify(catalogue, [{ name: 'api', fingerprint: fp('a'), files: 1 }], receipt, ['native']);
    expect(row(rows, 'api')).toMatchObject({ status: 'in-cluster', reasons: [] });
  });
  it('a changed image with a native runtime is a candidate, naming the changed input when encodings are given', () => {
    const now = [
      {
        name: 'api',
        fingerprint: fp('f'),
        files: 1,
        encoding: 'fingerprint/v1\nfile\t100644\t' + fp('2') + '\tapi/run.sh\n',
      },
    ];
    const before = new Map([['api', 'fingerprint/v1\nfile\t100644\t' + fp('1') + '\tapi/run.sh\n']]);
    expect(row(classify(catalogue, now, receipt, ['native'], before), 'api')).toMatchObject({
      status: 'candidate',
      reasons: ['file "api/run.sh" changed'],
    });
  });
  it('a changed image without a runtime (actors, migrations) needs make reconcile', () => {
    const rows = classify(catalogue, [{ name: 'worker', fingerprint: fp('f'), files: 1 }], receipt, ['native']);
    expect(row(rows, 'worker')).toMatchObject({
      status: 'needs-reconcile',
      reasons: ['fingerprint differs from the receipt', 'no takeover runtime (catalogue has no "takeover")'],
    });
  });
  it('a runtime this version does not ship, or an image never delivered, needs make reconcile', () => {
    const rows = classify(
      catalogue,
      [
        { name: 'web', fingerprint: fp('f'), files: 1 },
        { name: 'new', fingerprint: fp('f'), files: 1 },
      ],
      receipt,
      ['native'],
    );
    expect(row(rows, 'web')?.reasons.at(-1)).toBe('runtime "docker" is not available in this version');
    expect(row(rows, 'web')?.status).toBe('needs-reconcile');
    expect(row(rows, 'new')).toMatchObject({
      status: 'needs-reconcile',
      reasons: ['not in the receipt: never delivered'],
    });
  });
});
