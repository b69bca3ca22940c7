import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../scripts/lib/catalogue/parse-catalogue.ts';
import { catalogueBases, splitReference } from '../../../scripts/lib/registry-seed/index.ts';

const REGISTRY = 'registry.pharos-build.svc.cluster.local:5000';
const catalogue = parseCatalogue(
  [
    'platform: linux/amd64',
    'images:',
    '  api: {image: pharos/api, application: pharos, context: ., dockerfile: api/Dockerfile, inputs: [api]}',
    '  migrate: {image: pharos/migrate, application: pharos, context: ., dockerfile: worker/Dockerfile, target: migrate, inputs: [worker]}',
    '  worker: {image: pharos/worker, application: pharos, context: ., dockerfile: worker/Dockerfile, target: worker, inputs: [worker]}',
  ].join('\n'),
  'gitops/manifests/images.yaml',
);
const files = (tree: Record<string, string>) => async (path: string) =>
  tree[path] === undefined ? undefined : Buffer.from(tree[path]);

describe('catalogueBases', () => {
  it('lists each base the build Job resolves in the in-cluster registry once, with the images built on it', async () => {
    const read = files({
      'api/Dockerfile': 'ARG BASE_REGISTRY=docker.io\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE}\n',
      'worker/Dockerfile': [
        'ARG BASE_REGISTRY=docker.io',
        'FROM ${BASE_REGISTRY}/pharos/base:local AS worker',
        'FROM ${BASE_REGISTRY}/pharos/postgres-base:local AS migrate',
        'ARG BASE_REGISTRY',
        'COPY --from=${BASE_REGISTRY}/pharos/tools@sha256:' + 'a'.repeat(64) + ' /x /x',
      ].join('\n'),
    });
    expect(await catalogueBases(catalogue, read, REGISTRY)).toEqual([
      { path: 'pharos/base:local', images: ['api', 'worker'] },
      { path: 'pharos/postgres-base:local', images: ['migrate'] },
      { path: `pharos/tools@sha256:${'a'.repeat(64)}`, images: ['migrate'] },
    ]);
  });

  it('refuses every base named outside the registry, with its Dockerfile and line, and a missing Dockerfile', async () => {
    const read = files({ 'worker/Dockerfile': 'FROM pharos/base:local AS worker\nFROM node:24 AS migrate\n' });
    await expect(catalogueBases(catalogue, read, REGISTRY)).rejects.toThrow(
      [
        `Cannot seed the base images into "${REGISTRY}":`,
        '  image "api": Dockerfile "api/Dockerfile" is not in the source',
        '  image "migrate": worker/Dockerfile line 2 names "node:24", outside the in-cluster registry (name it "${BASE_REGISTRY}/library/node:24")',
        '  image "worker": worker/Dockerfile line 1 names "pharos/base:local", outside the in-cluster registry (name it "${BASE_REGISTRY}/pharos/base:local")',
      ].join('\n'),
    );
  });
});

describe('splitReference (as Docker normalises a name)', () => {
  it.each([
    ['node:24', { host: 'docker.io', repository: 'library/node', suffix: ':24' }],
    ['pharos/base', { host: 'docker.io', repository: 'pharos/base', suffix: ':latest' }],
    ['localhost/a/b:1', { host: 'localhost', repository: 'a/b', suffix: ':1' }],
    ['127.0.0.1:5000/a@sha256:x', { host: '127.0.0.1:5000', repository: 'a', suffix: '@sha256:x' }],
    ['reg.example:5000/a/b:t@sha256:x', { host: 'reg.example:5000', repository: 'a/b', suffix: ':t@sha256:x' }],
  ])('%s', (reference, split) => {
    expect(splitReference(reference)).toEqual(split);
  });
});
