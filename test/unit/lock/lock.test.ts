import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../scripts/lib/catalogue/index.ts';
import {
  checkImageBindings,
  checkLockMatches,
  imageVariable,
  lockEnv,
  parseLock,
  produceLock,
  serializeLock,
  LockError,
} from '../../../scripts/lib/lock/index.ts';
import { thrown } from '../../support/thrown.ts';

const catalogue = parseCatalogue(
  readFileSync(join(import.meta.dirname, '../../../examples/platform/gitops/manifests/images.yaml'), 'utf8'),
  'gitops/manifests/images.yaml',
);
const commit = 'c'.repeat(40);
const ref = (image: string, n: number) => `ghcr.io/acme/${image}@sha256:${n.toString(16).padStart(64, '0')}`;
const built = Object.fromEntries(catalogue.images.map((e, i) => [e.name, ref(e.image, i + 1)]));

describe('produceLock', () => {
  it('binds every catalogue image to its own HEPHAESTUS_IMAGE_* variable', () => {
    const lock = produceLock({ release: 'v1.2.3', commit, catalogue, built });
    expect(lock).toMatchObject({ schemaVersion: 1, release: 'v1.2.3', commit });
    expect(lock.images[imageVariable('compat-web')]).toBe(built['compat-web']);
    expect(Object.keys(lock.images)).toHaveLength(catalogue.images.length);
    expect(imageVariable('compat-web')).toBe('HEPHAESTUS_IMAGE_COMPAT_WEB');
  });

  it('writes a joint chart lock when given the chart', () => {
    const chart = {
      name: 'hephaestus',
      version: '1.2.3',
      reference: `oci://ghcr.io/acme/charts/hephaestus@sha256:${'e'.repeat(64)}`,
    };
    const lock = produceLock({ release: 'v1.2.3', commit, catalogue, built, chart });
    expect(parseLock(Buffer.from(serializeLock(lock)), 'release-v1.2.3.chart.json', 'chart')).toEqual(lock);
  });

  it('refuses a catalogue image without a built digest', () => {
    const { api: _api, ...rest } = built;
    expect(thrown(LockError, () => produceLock({ release: 'v1.2.3', commit, catalogue, built: rest })).message).toMatch(
      /no built digest for catalogue image "api"/,
    );
  });

  it("refuses a digest of another image's repository", () => {
    expect(
      thrown(LockError, () =>
        produceLock({ release: 'v1.2.3', commit, catalogue, built: { ...built, api: built.worker ?? '' } }),
      ).code,
    ).toBe('binding');
  });

  it('refuses a built image that the catalogue does not know', () => {
    expect(
      thrown(LockError, () =>
        produceLock({ release: 'v1.2.3', commit, catalogue, built: { ...built, ghost: ref('pharos/ghost', 9) } }),
      ).message,
    ).toMatch(/ghost/);
  });

  it('every refusal to produce is an input error: exit status 2, the same until the input is fixed', () => {
    const { api: _api, ...rest } = built;
    for (const bad of [rest, { ...built, api: built.worker ?? '' }, { ...built, ghost: ref('pharos/ghost', 9) }]) {
      expect(thrown(LockError, () => produceLock({ release: 'v1.2.3', commit, catalogue, built: bad })).exitCode).toBe(
        2,
      );
    }
  });
});

describe('host checks on a lock', () => {
  const lock = produceLock({ release: 'v1.2.3', commit, catalogue, built });

  it("refuses a lock whose commit is not the tag's commit", () => {
    expect(
      thrown(LockError, () => checkLockMatches(lock, 'v1.2.3', 'd'.repeat(40), 'release-v1.2.3.json')).message,
    ).toMatch(/not the commit of tag "v1\.2\.3"/);
  });

  it('refuses a lock of another release', () => {
    expect(thrown(LockError, () => checkLockMatches(lock, 'v1.2.4', commit, 'release-v1.2.4.json')).code).toBe('match');
  });

  it("refuses another service's digest under a variable", () => {
    const error = thrown(LockError, () =>
      checkImageBindings(lock, [
        {
          variable: 'HEPHAESTUS_IMAGE_API',
          image: lock.images.HEPHAESTUS_IMAGE_WORKER ?? '',
          where: 'compose.core.yaml: services.api.image',
        },
      ]),
    );
    expect(error.message).toMatch(/pinned for "HEPHAESTUS_IMAGE_WORKER", not "HEPHAESTUS_IMAGE_API"/);
  });

  it('accepts each image at its own variable', () => {
    expect(() =>
      checkImageBindings(lock, [
        { variable: 'HEPHAESTUS_IMAGE_API', image: lock.images.HEPHAESTUS_IMAGE_API ?? '', where: 'x' },
      ]),
    ).not.toThrow();
  });

  it('writes the lock as sorted KEY=value lines', () => {
    const lines = lockEnv(lock).trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['HEPHAESTUS_RELEASE=v1.2.3', `HEPHAESTUS_COMMIT=${commit}`]);
    expect(lines).toContain(`HEPHAESTUS_IMAGE_API=${built.api}`);
  });

  it('names the file, field and value of a malformed lock', () => {
    const bad = Buffer.from(JSON.stringify({ schemaVersion: 1, release: 'v1.2.3', commit: 'short', images: {} }));
    expect(thrown(LockError, () => parseLock(bad, 'release-v1.2.3.json', 'compose')).message).toMatch(
      /release-v1\.2\.3\.json: commit: .*\(value "short"\)/,
    );
  });
});
