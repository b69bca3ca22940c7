import { describe, expect, it } from 'vitest';
import { imageMap } from '../../../scripts/lib/ci/image-map.ts';

const digest = (n: number) => `sha256:${String(n).repeat(64)}`;

describe('imageMap (build-changed output -> channel pins and attestation subjects)', () => {
  it('names each image by its HEPHAESTUS_IMAGE_* variable and lists one subject per digest', () => {
    const built = {
      api: `ghcr.io/acme/pharos/api@${digest(1)}`,
      'compat-web': `ghcr.io/acme/pharos/compat-web@${digest(2)}`,
    };
    expect(imageMap(JSON.stringify(built), 'built.json')).toEqual({
      pins: { HEPHAESTUS_IMAGE_API: built.api, HEPHAESTUS_IMAGE_COMPAT_WEB: built['compat-web'] },
      subjects: [
        { name: 'ghcr.io/acme/pharos/api', digest: digest(1) },
        { name: 'ghcr.io/acme/pharos/compat-web', digest: digest(2) },
      ],
    });
  });

  it('refuses a reference that is not pinned by digest, naming file, field and value', () => {
    expect(() => imageMap('{"api":"ghcr.io/acme/api:latest"}', 'built.json')).toThrow(
      /built\.json: api: .*ghcr\.io\/acme\/api:latest/,
    );
  });

  it('refuses text that is not JSON, and an empty build (a main build publishes every image)', () => {
    expect(() => imageMap('not json', 'BUILT')).toThrow(
      expect.objectContaining({ code: 'built', message: expect.stringMatching(/BUILT.*not JSON/) }),
    );
    expect(() => imageMap('{}', 'built.json')).toThrow(
      expect.objectContaining({ code: 'built', message: expect.stringMatching(/lists no image/) }),
    );
  });
});
