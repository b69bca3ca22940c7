import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerBuildSpec, parseCatalogue } from '../../../scripts/lib/catalogue/index.ts';
import type { ImageEntry } from '../../../scripts/lib/catalogue/index.ts';

const catalogue = parseCatalogue(
  readFileSync(join(import.meta.dirname, '../../../examples/platform/gitops/manifests/images.yaml'), 'utf8'),
  'gitops/manifests/images.yaml',
);
const entry = (name: string) => catalogue.images.find((e) => e.name === name) as ImageEntry;

describe('dockerBuildSpec', () => {
  it('takes the Dockerfile relative to the context, the target, the sorted build args and the platform', () => {
    expect(dockerBuildSpec(entry('compat-web'))).toEqual({
      context: 'apps/compat',
      dockerfile: 'Dockerfile',
      target: undefined,
      buildArgs: [
        { name: 'APP', value: 'realtime-gateway' },
        { name: 'FLAVOUR', value: 'web' },
      ],
      platform: 'linux/amd64',
    });
    expect(dockerBuildSpec(entry('migrate'))).toMatchObject({
      context: '.',
      dockerfile: 'services/worker/Dockerfile',
      target: 'migrate',
      buildArgs: [],
    });
  });

  it('refuses a Dockerfile outside its context, naming both', () => {
    expect(() => dockerBuildSpec({ ...entry('api'), context: 'services/worker' })).toThrow(
      'Cannot build image "api": Dockerfile "services/api/Dockerfile" is outside its context "services/worker"',
    );
  });
});
