// What a host accepts from a release lock and what the release workflow writes into one: each test protects one
// decision a mutant changed while the other lock tests still passed.
import { describe, expect, it } from 'vitest';
import type { Catalogue } from '../../../scripts/lib/catalogue/catalogue.ts';
import {
  checkImageBindings,
  checkLockMatches,
  checkReleaseInputs,
  imageVariable,
  lockEnv,
  lockFileName,
  LockError,
  parseBuilt,
  parseLock,
  prepareReleaseLock,
  produceLock,
  serializeLock,
} from '../../../scripts/lib/lock/index.ts';
import type { ChartLock, ComposeLock } from '../../../scripts/lib/lock/index.ts';
import { thrown } from '../../support/thrown.ts';

const commit = 'c'.repeat(40);
const pin = (repository: string, n: number) => `${repository}@sha256:${n.toString(16).padStart(64, '0')}`;
const lock: ComposeLock = {
  schemaVersion: 1,
  release: 'v1.2.3',
  commit,
  images: {
    HEPHAESTUS_IMAGE_API: pin('ghcr.io/acme/pharos/api', 1),
    HEPHAESTUS_IMAGE_WORKER: pin('ghcr.io/acme/pharos/worker', 2),
  },
};
const chart: ChartLock['chart'] = {
  name: 'hephaestus',
  version: '1.2.3-rc.1',
  reference: `oci://ghcr.io/acme/charts/hephaestus@sha256:${'e'.repeat(64)}`,
};
const chartLock: ChartLock = { schemaVersion: 2, kind: 'chart', release: 'v1.2.3', commit, chart, images: lock.images };

const entry = (name: string, image: string) => ({
  name,
  image,
  application: 'pharos',
  context: '.',
  dockerfile: 'Dockerfile',
  target: undefined,
  args: [],
  platform: 'linux/amd64',
  inputs: ['.'],
  exclude: [],
  takeover: undefined,
});
const catalogue = {
  images: [entry('api', 'pharos/api'), entry('compat-web', 'pharos/compat-web')],
} as unknown as Catalogue;
const built = { api: pin('ghcr.io/acme/pharos/api', 1), 'compat-web': pin('ghcr.io/acme/pharos/compat-web', 3) };

describe('checkLockMatches()', () => {
  it('accepts a lock whose release and commit both match the tag', () => {
    expect(() => checkLockMatches(lock, 'v1.2.3', commit, 'release-v1.2.3.json')).not.toThrow();
  });

  it('names the file, the lock release and the requested one', () => {
    const error = thrown(LockError, () => checkLockMatches(lock, 'v1.2.4', commit, 'release-v1.2.4.json'));
    expect([error.code, error.message]).toEqual([
      'match',
      'Cannot use lock "release-v1.2.4.json": release "v1.2.3" is not the requested "v1.2.4"',
    ]);
    expect(error.details).toEqual({ file: 'release-v1.2.4.json', release: 'v1.2.3', tag: 'v1.2.4' });
  });

  it("names the lock's commit and the tag's", () => {
    const error = thrown(LockError, () => checkLockMatches(lock, 'v1.2.3', 'd'.repeat(40), 'release-v1.2.3.json'));
    expect([error.code, error.message]).toEqual([
      'match',
      `Cannot use lock "release-v1.2.3.json": commit ${commit} is not the commit of tag "v1.2.3" (${'d'.repeat(40)})`,
    ]);
    expect(error.details).toEqual({ file: 'release-v1.2.3.json', commit, tagCommit: 'd'.repeat(40) });
  });
});

describe('checkImageBindings()', () => {
  it('accepts every image at its own variable, and no uses at all', () => {
    expect(() =>
      checkImageBindings(lock, [
        { variable: 'HEPHAESTUS_IMAGE_API', image: pin('ghcr.io/acme/pharos/api', 1), where: 'a' },
        { variable: 'HEPHAESTUS_IMAGE_WORKER', image: pin('ghcr.io/acme/pharos/worker', 2), where: 'b' },
      ]),
    ).not.toThrow();
    expect(() => checkImageBindings(lock, [])).not.toThrow();
  });

  it('refuses a variable the lock does not pin, naming where it is used', () => {
    const use = {
      variable: 'HEPHAESTUS_IMAGE_WEB',
      image: pin('ghcr.io/acme/pharos/web', 9),
      where: 'docker/compose.app.yaml: services.web.image',
    };
    const error = thrown(LockError, () => checkImageBindings(lock, [use]));
    expect([error.code, error.message]).toEqual([
      'binding',
      'Cannot use image at docker/compose.app.yaml: services.web.image: variable "HEPHAESTUS_IMAGE_WEB" is not in the lock of v1.2.3',
    ]);
  });

  it('refuses an image the lock pins for no variable', () => {
    const use = { variable: 'HEPHAESTUS_IMAGE_API', image: pin('ghcr.io/acme/pharos/api', 7), where: 'x' };
    const error = thrown(LockError, () => checkImageBindings(lock, [use]));
    expect(error.message).toBe(`Cannot use image "${use.image}" at x: it is not pinned by the lock`);
    expect(error.details).toEqual({ ...use, pinned: lock.images.HEPHAESTUS_IMAGE_API });
  });

  it('checks every use, not only the first', () => {
    const good = { variable: 'HEPHAESTUS_IMAGE_API', image: pin('ghcr.io/acme/pharos/api', 1), where: 'a' };
    const bad = { variable: 'HEPHAESTUS_IMAGE_WORKER', image: pin('ghcr.io/acme/pharos/api', 1), where: 'b' };
    expect(thrown(LockError, () => checkImageBindings(lock, [good, bad])).message).toMatch(
      /pinned for "HEPHAESTUS_IMAGE_API", not "HEPHAESTUS_IMAGE_WORKER"/,
    );
  });
});

describe('lockEnv()', () => {
  it('writes release, commit and every image, sorted, one KEY=value per line with a final newline', () => {
    expect(lockEnv(lock)).toBe(
      `HEPHAESTUS_RELEASE=v1.2.3\nHEPHAESTUS_COMMIT=${commit}\nHEPHAESTUS_RELEASE_COMMIT=${commit}\n` +
        `HEPHAESTUS_IMAGE_API=${lock.images.HEPHAESTUS_IMAGE_API}\nHEPHAESTUS_IMAGE_WORKER=${lock.images.HEPHAESTUS_IMAGE_WORKER}\n`,
    );
  });

  it('adds the chart name, version and reference for a chart lock', () => {
    expect(lockEnv(chartLock).split('\n').slice(3, 6)).toEqual([
      'HEPHAESTUS_CHART_NAME=hephaestus',
      'HEPHAESTUS_CHART_VERSION=1.2.3-rc.1',
      `HEPHAESTUS_CHART_REFERENCE=${chart.reference}`,
    ]);
  });

  it('sorts images by variable, whatever order the lock lists them in', () => {
    const reversed = {
      ...lock,
      images: {
        HEPHAESTUS_IMAGE_WORKER: lock.images.HEPHAESTUS_IMAGE_WORKER ?? '',
        HEPHAESTUS_IMAGE_API: lock.images.HEPHAESTUS_IMAGE_API ?? '',
      },
    };
    expect(lockEnv(reversed)).toBe(lockEnv(lock));
  });
});

describe('lock files', () => {
  it('are named release-<tag>.json, release-<tag>.chart.json for a chart', () => {
    expect(lockFileName('v1.2.3', 'compose')).toBe('release-v1.2.3.json');
    expect(lockFileName('v1.2.3', 'chart')).toBe('release-v1.2.3.chart.json');
  });

  it('parse as the kind the host asked for: a Compose lock is not a chart lock, and the reverse', () => {
    expect(parseLock(Buffer.from(serializeLock(lock)), 'release-v1.2.3.json', 'compose')).toEqual(lock);
    expect(parseLock(Buffer.from(serializeLock(chartLock)), 'release-v1.2.3.chart.json', 'chart')).toEqual(chartLock);
    expect(
      thrown(LockError, () => parseLock(Buffer.from(serializeLock(lock)), 'release-v1.2.3.chart.json', 'chart')).code,
    ).toBe('malformed');
    expect(
      thrown(LockError, () => parseLock(Buffer.from(serializeLock(chartLock)), 'release-v1.2.3.json', 'compose')).code,
    ).toBe('malformed');
  });

  it('refuses bytes that are not UTF-8 JSON, naming the file', () => {
    const error = thrown(LockError, () => parseLock(Buffer.from([0x7b, 0xff]), 'release-v1.2.3.json', 'compose'));
    expect(error.message).toMatch(/^Cannot read lock "release-v1\.2\.3\.json": not UTF-8 JSON \(.+\)$/);
    expect(error.details).toEqual({ file: 'release-v1.2.3.json' });
  });

  it('names every bad field of a lock', () => {
    const bad = {
      ...chartLock,
      release: '1.2.3',
      chart: { name: 'Hephaestus', version: '1.2', reference: 'ghcr.io/acme/charts/hephaestus:1.2.3' },
    };
    const error = thrown(LockError, () =>
      parseLock(Buffer.from(JSON.stringify(bad)), 'release-v1.2.3.chart.json', 'chart'),
    );
    expect(error.message).toMatch(/^Cannot read lock:\n/);
    expect(error.message).toContain('release-v1.2.3.chart.json: release: expected vX.Y.Z (value "1.2.3")');
    expect(error.message).toContain('chart.name: expected a chart name (value "Hephaestus")');
    expect(error.message).toContain('chart.version: expected a SemVer chart version (value "1.2")');
    expect(error.message).toContain('chart.reference: expected oci://<repository>@sha256:<64 hex>');
  });

  it('chart fields are exact: anchored name, SemVer version, an OCI reference by digest', () => {
    const accepts = (c: Partial<ChartLock['chart']>) => {
      try {
        parseLock(Buffer.from(JSON.stringify({ ...chartLock, chart: { ...chart, ...c } })), 'f', 'chart');
        return true;
      } catch {
        return false;
      }
    };
    expect(accepts({ version: '0.1.0' })).toBe(true);
    expect(accepts({ name: `h${'a'.repeat(52)}` })).toBe(true);
    for (const name of ['-h', 'h_a', `h${'a'.repeat(53)}`, 'x h', ' h']) expect(accepts({ name }), name).toBe(false);
    for (const version of ['01.2.3', '1.02.3', '1.2.03', '1.2.3-', '1.2.3+x', 'v1.2.3', '1.2.3 '])
      expect(accepts({ version }), version).toBe(false);
    for (const reference of [
      `oci://ghcr.io/x@sha256:${'e'.repeat(63)}`,
      `https://ghcr.io/x@sha256:${'e'.repeat(64)}`,
      `oci://ghcr.io/x@sha256:${'e'.repeat(64)} `,
      ` oci://ghcr.io/x@sha256:${'e'.repeat(64)}`,
      `oci://-x@sha256:${'e'.repeat(64)}`,
    ]) {
      expect(accepts({ reference }), reference).toBe(false);
    }
  });
});

describe('produceLock()', () => {
  it('binds each catalogue image to its own variable and its digest, whatever the registry host', () => {
    expect(produceLock({ release: 'v1.2.3', commit, catalogue, built })).toEqual({
      schemaVersion: 1,
      release: 'v1.2.3',
      commit,
      images: { HEPHAESTUS_IMAGE_API: built.api, HEPHAESTUS_IMAGE_COMPAT_WEB: built['compat-web'] },
    });
    const bare = { api: pin('pharos/api', 1), 'compat-web': pin('pharos/compat-web', 3) };
    expect(produceLock({ release: 'v1.2.3', commit, catalogue, built: bare }).images.HEPHAESTUS_IMAGE_API).toBe(
      bare.api,
    );
  });

  it('refuses a digest of a repository that only ends like the catalogue image', () => {
    const error = thrown(LockError, () =>
      produceLock({
        release: 'v1.2.3',
        commit,
        catalogue,
        built: { ...built, api: pin('ghcr.io/acme/xpharos/api', 1) },
      }),
    );
    expect([error.code, error.exitCode]).toEqual(['binding', 2]);
    expect(error.message).toBe(
      `Cannot produce lock: digest for "api" is of "ghcr.io/acme/xpharos/api", not of its catalogue image "pharos/api"`,
    );
  });

  it('names the built image the catalogue does not know and the catalogue image nothing built', () => {
    expect(
      thrown(LockError, () =>
        produceLock({ release: 'v1.2.3', commit, catalogue, built: { ...built, ghost: pin('pharos/ghost', 4) } }),
      ).message,
    ).toBe('Cannot produce lock: built image "ghost" is not in the catalogue');
    expect(
      thrown(LockError, () => produceLock({ release: 'v1.2.3', commit, catalogue, built: { api: built.api } })).message,
    ).toBe('Cannot produce lock: no built digest for catalogue image "compat-web"');
  });

  it('writes a chart lock only when given the chart', () => {
    expect(produceLock({ release: 'v1.2.3', commit, catalogue, built, chart })).toMatchObject({
      schemaVersion: 2,
      kind: 'chart',
      chart,
    });
  });

  it('imageVariable() upper-cases the name and turns every other character into "_"', () => {
    expect(imageVariable('compat-web.v2')).toBe('HEPHAESTUS_IMAGE_COMPAT_WEB_V2');
    expect(imageVariable('a--b')).toBe('HEPHAESTUS_IMAGE_A__B');
  });
});

describe('prepareReleaseLock() and its inputs', () => {
  it('leaves the lock unsigned without a signer', async () => {
    const prepared = await prepareReleaseLock({ release: 'v1.2.3', commit, catalogue, built });
    expect(prepared.bundle).toBeUndefined();
    expect(prepared.bytes.toString('utf8')).toBe(serializeLock(prepared.lock));
  });

  it('checkReleaseInputs() refuses near misses of vX.Y.Z and of a commit id', () => {
    expect(() => checkReleaseInputs('v1.2.3', commit)).not.toThrow();
    expect(() => checkReleaseInputs('v1.2.3-rc', commit)).toThrow(
      'Cannot produce lock: release "v1.2.3-rc" is not vX.Y.Z',
    );
    expect(() => checkReleaseInputs('v1.2.3', 'C'.repeat(40))).toThrow(
      `Cannot produce lock: commit "${'C'.repeat(40)}" is not 40 lower-case hex digits`,
    );
  });

  it('parseBuilt() reads catalogue names and pinned images, refusing names of another form', () => {
    expect(parseBuilt(JSON.stringify(built), 'built.json')).toEqual(built);
    expect(() => parseBuilt(JSON.stringify({ Api: built.api }), 'built.json')).toThrow(
      /built\.json: Api: invalid key: expected a catalogue image name/,
    );
    expect(() => parseBuilt(JSON.stringify({ '-api': built.api }), 'built.json')).toThrow(
      /expected a catalogue image name/,
    );
    expect(() => parseBuilt(JSON.stringify({ 'api ': built.api }), 'built.json')).toThrow(
      /expected a catalogue image name/,
    );
    expect(() => parseBuilt('[', 'built.json')).toThrow(/^Cannot read built digests "built\.json": not JSON \(.+\)$/);
  });
});

describe('lock refusals carry their code and details', () => {
  it('an unknown variable: binding, with the use', () => {
    const use = { variable: 'HEPHAESTUS_IMAGE_WEB', image: pin('ghcr.io/acme/pharos/web', 9), where: 'w' };
    expect(thrown(LockError, () => checkImageBindings(lock, [use])).details).toEqual(use);
  });

  it("another service's digest: binding", () => {
    const use = { variable: 'HEPHAESTUS_IMAGE_API', image: lock.images.HEPHAESTUS_IMAGE_WORKER ?? '', where: 'x' };
    expect(thrown(LockError, () => checkImageBindings(lock, [use])).code).toBe('binding');
  });

  it('produceLock(): missing with the image name for unknown or unbuilt images, binding with the reference', () => {
    const ghost = thrown(LockError, () =>
      produceLock({ release: 'v1.2.3', commit, catalogue, built: { ...built, ghost: pin('pharos/ghost', 4) } }),
    );
    expect([ghost.code, ghost.details]).toEqual(['missing', { name: 'ghost' }]);
    const unbuilt = thrown(LockError, () =>
      produceLock({ release: 'v1.2.3', commit, catalogue, built: { api: built.api } }),
    );
    expect([unbuilt.code, unbuilt.details]).toEqual(['missing', { name: 'compat-web' }]);
    const wrong = thrown(LockError, () =>
      produceLock({ release: 'v1.2.3', commit, catalogue, built: { ...built, api: built['compat-web'] } }),
    );
    expect(wrong.details).toEqual({ name: 'api', ref: built['compat-web'] });
  });

  it('parseLock(): malformed with the file, one bad field per line, and UTF-8 checked inside strings', () => {
    const utf8 = thrown(LockError, () =>
      parseLock(
        Buffer.concat([Buffer.from('{"release":"'), Buffer.from([0xff]), Buffer.from('"}')]),
        'release-v1.2.3.json',
        'compose',
      ),
    );
    expect([utf8.code, utf8.details]).toEqual(['malformed', { file: 'release-v1.2.3.json' }]);
    expect(utf8.message).toMatch(/not UTF-8 JSON/);
    const bad = thrown(LockError, () =>
      parseLock(Buffer.from(JSON.stringify({ ...lock, release: 'x', commit: 'y' })), 'release-v1.2.3.json', 'compose'),
    );
    expect(bad.details).toEqual({ file: 'release-v1.2.3.json' });
    expect(bad.message.split('\n').slice(1)).toEqual([
      'release-v1.2.3.json: release: expected vX.Y.Z (value "x")',
      'release-v1.2.3.json: commit: expected 40 lower-case hex digits (value "y")',
    ]);
  });

  it('a chart version may have numbers of several digits, but only digits', () => {
    const accepts = (version: string) => {
      try {
        parseLock(Buffer.from(JSON.stringify({ ...chartLock, chart: { ...chart, version } })), 'f', 'chart');
        return true;
      } catch {
        return false;
      }
    };
    expect(accepts('10.20.30')).toBe(true);
    expect(accepts('1a.2.3')).toBe(false);
    expect(accepts('1.2a.3')).toBe(false);
    expect(accepts('1.2.3a')).toBe(false);
  });
});

describe('prepareReleaseLock() with a chart', () => {
  it('writes the joint chart lock', async () => {
    const prepared = await prepareReleaseLock({ release: 'v1.2.3', commit, catalogue, built, chart });
    expect(prepared.lock).toMatchObject({ schemaVersion: 2, kind: 'chart', chart });
  });

  it('parseBuilt() keeps the JSON error as the cause and puts each bad field on its own line', () => {
    let caught: unknown;
    try {
      parseBuilt('[', 'built.json');
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).cause).toBeInstanceOf(SyntaxError);
    expect(() => parseBuilt(JSON.stringify({ api: 'x', web: 'y' }), 'built.json')).toThrow(
      /\nbuilt\.json: api: .*\nbuilt\.json: web: /,
    );
  });
});
