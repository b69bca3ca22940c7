import { describe, expect, it } from 'vitest';
import { kustomizeImages, rootInputs, rootInputsPatch } from '../../../scripts/lib/delivery/root-inputs.ts';
import type { Catalogue } from '../../../scripts/lib/catalogue/catalogue.ts';

const ref = `registry.pharos-build.svc.cluster.local:5000/compat-web@sha256:${'a'.repeat(64)}`;

describe('root inputs', () => {
  const image = (name: string, application: string) => ({
    name,
    image: `pharos/${name}`,
    application,
    context: '.',
    dockerfile: 'D',
    target: undefined,
    args: [],
    platform: 'linux/amd64',
    inputs: ['.'],
    exclude: [],
    takeover: undefined,
  });
  const catalogue: Catalogue = {
    file: 'c',
    platform: 'linux/amd64',
    exclude: [],
    owned: [],
    images: [image('api', 'pharos'), image('compat-web', 'themelio-compat')],
  };
  const images = { api: `r:5000/api@sha256:${'1'.repeat(64)}`, 'compat-web': ref };

  it('passes each Application only its own images as kustomize.images, by digest', () => {
    expect(kustomizeImages(catalogue, 'pharos', images)).toEqual([`pharos/api=r:5000/api@sha256:${'1'.repeat(64)}`]);
    const inputs = rootInputs(catalogue, 'c'.repeat(40), images, 'git://g/p.git');
    expect(inputs.patches.map((p) => p.target['name'])).toEqual(['pharos', 'themelio-compat']);
    expect(JSON.parse(inputs.patches[1]?.patch ?? '')).toMatchObject({
      spec: {
        source: {
          repoURL: 'git://g/p.git',
          targetRevision: 'c'.repeat(40),
          kustomize: { images: [`pharos/compat-web=${ref}`] },
        },
      },
    });
  });

  it('patches the root only when its inputs differ', () => {
    const inputs = rootInputs(catalogue, 'c'.repeat(40), images, 'git://g/p.git');
    const patch = rootInputsPatch({ spec: { source: { targetRevision: 'old' } } }, inputs);
    expect(patch).toBeDefined();
    expect(rootInputsPatch({ spec: (patch as any).spec }, inputs)).toBeUndefined();
  });
});
