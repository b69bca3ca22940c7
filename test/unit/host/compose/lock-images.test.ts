import { describe, expect, it } from 'vitest';
import { lockImages } from '../../../../scripts/lib/host/compose/lock-images.ts';

const ref = (n: number) => `registry.example/acme/api@sha256:${String(n).repeat(64)}`;

describe('lockImages(): the references the kept releases name', () => {
  it('takes every HEPHAESTUS_IMAGE_* digest reference of every lock, each once', () => {
    expect(
      lockImages([
        { HEPHAESTUS_IMAGE_API: ref(1), HEPHAESTUS_IMAGE_WORKER: ref(2) },
        undefined,
        { HEPHAESTUS_IMAGE_API: ref(1) },
      ]),
    ).toEqual([ref(1), ref(2)]);
  });

  it('ignores other settings and image values that are not pinned by digest', () => {
    expect(
      lockImages([
        {
          HEPHAESTUS_RELEASE: ref(3),
          IMAGE_API: ref(4),
          HEPHAESTUS_IMAGE_TAGGED: 'registry.example/acme/api:1.0',
          HEPHAESTUS_IMAGE_API: ref(5),
        },
      ]),
    ).toEqual([ref(5)]);
  });

  it('names nothing when no lock is known', () => {
    expect(lockImages([undefined, undefined])).toEqual([]);
  });
});
