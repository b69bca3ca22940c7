// The shapes a host accepts in a signed channel: each pattern is anchored and exact, so a near miss is refused with
// the file, the field and the value named.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChannelError,
  COMMIT_SHA,
  compareReleases,
  ENVIRONMENT,
  IMAGE_VARIABLE,
  parseChannel,
  PINNED_IMAGE,
  RELEASE_TAG,
  serializeChannel,
} from '../../../scripts/lib/channel/index.ts';
import { majorOf } from '../../../scripts/lib/channel/compare-releases.ts';
import { channelIdentity } from '../../../scripts/lib/channel/channel-identity.ts';
import { MAX_ARTIFACT_BYTES } from '../../../scripts/lib/signing/read-bounded.ts';
import { thrown } from '../../support/thrown.ts';

const sha = 'a'.repeat(40);
const digest = `ghcr.io/o/api@sha256:${'b'.repeat(64)}`;
const v2 = {
  schema: 2,
  environment: 'staging',
  version: 17,
  issued: '2026-11-29T10:00:00Z',
  expires: '2026-12-06T10:00:00Z',
};
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

const refusedAs = (value: unknown) => thrown(ChannelError, () => parseChannel(bytes(value), 'channels/staging.json'));

describe('the patterns of a channel', () => {
  it('RELEASE_TAG is vX.Y.Z exactly, without leading zeros', () => {
    for (const tag of ['v0.0.0', 'v1.2.3', 'v10.20.30']) expect(RELEASE_TAG.test(tag), tag).toBe(true);
    for (const tag of [
      '1.2.3',
      'v1.2',
      'v1.2.3-rc.1',
      'xv1.2.3',
      'v1.2.3 ',
      'v01.2.3',
      'v1.02.3',
      'v1.2.03',
      'v1..3',
      'va.b.c',
    ])
      expect(RELEASE_TAG.test(tag), tag).toBe(false);
  });

  it('COMMIT_SHA is 40 lower-case hex digits exactly', () => {
    expect(COMMIT_SHA.test('0123456789abcdef0123456789abcdef01234567')).toBe(true);
    for (const commit of [
      'A'.repeat(40),
      'a'.repeat(39),
      'a'.repeat(41),
      `x${'a'.repeat(40)}`,
      `${'a'.repeat(40)}x`,
      'g'.repeat(40),
    ])
      expect(COMMIT_SHA.test(commit), commit).toBe(false);
  });

  it('ENVIRONMENT is a lower-case name of 1 to 63 characters starting with a letter', () => {
    for (const env of ['a', 'staging', 'eu-west-2', `a${'b'.repeat(62)}`])
      expect(ENVIRONMENT.test(env), env).toBe(true);
    for (const env of ['', 'Staging', '2nd', '-a', 'a_b', `a${'b'.repeat(63)}`, 'staging ', ' staging'])
      expect(ENVIRONMENT.test(env), env).toBe(false);
  });

  it('IMAGE_VARIABLE is HEPHAESTUS_IMAGE_<NAME> in upper case', () => {
    for (const name of ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_COMPAT_WEB2'])
      expect(IMAGE_VARIABLE.test(name), name).toBe(true);
    for (const name of [
      'HEPHAESTUS_IMAGE_',
      'HEPHAESTUS_IMAGE_api',
      'X_HEPHAESTUS_IMAGE_API',
      'HEPHAESTUS_IMAGE_API ',
      'HEPHAESTUS_IMAGE_A-B',
    ])
      expect(IMAGE_VARIABLE.test(name), name).toBe(false);
  });

  it('PINNED_IMAGE is a lower-case repository pinned by a full sha256 digest', () => {
    for (const ref of [digest, `127.0.0.1:5000/pharos/api@sha256:${'0'.repeat(64)}`, `a@sha256:${'f'.repeat(64)}`])
      expect(PINNED_IMAGE.test(ref), ref).toBe(true);
    for (const ref of [
      'ghcr.io/o/api:latest',
      `ghcr.io/o/api@sha256:${'b'.repeat(63)}`,
      `ghcr.io/o/api@sha256:${'b'.repeat(65)}`,
      `ghcr.io/o/api@sha256:${'B'.repeat(64)}`,
      `Ghcr.io/o/api@sha256:${'b'.repeat(64)}`,
      `-ghcr.io/o/api@sha256:${'b'.repeat(64)}`,
      `ghcr.io/o/api@sha512:${'b'.repeat(64)}`,
      ` ${digest}`,
      `${digest} `,
      `ghcr.io/o/a pi@sha256:${'b'.repeat(64)}`,
    ]) {
      expect(PINNED_IMAGE.test(ref), ref).toBe(false);
    }
  });
});

describe('parseChannel() of schema 2', () => {
  it('names the field and the expectation for every pattern', () => {
    const message = refusedAs({ ...v2, environment: 'Staging', commit: 'HEAD', images: { API: 'x:latest' } }).message;
    expect(message).toContain(
      'channels/staging.json: environment: expected a lower-case environment name (value "Staging")',
    );
    expect(message).toContain('channels/staging.json: commit: expected 40 lower-case hex digits (value "HEAD")');
    expect(message).toContain('expected HEPHAESTUS_IMAGE_<NAME>');
    expect(refusedAs({ ...v2, commit: sha, images: { HEPHAESTUS_IMAGE_API: 'x:latest' } }).message).toContain(
      'channels/staging.json: images.HEPHAESTUS_IMAGE_API: expected <repository>@sha256:<64 hex> (value "x:latest")',
    );
    expect(message).toMatch(/^Cannot read channel \(schema 2\):\n/);
  });

  it('refuses a version that is zero, fractional or beyond a safe integer', () => {
    for (const version of [0, 1.5, Number.MAX_SAFE_INTEGER + 1])
      expect(refusedAs({ ...v2, version, release: 'v1.0.0' }).message, String(version)).toMatch(/version:/);
    expect(parseChannel(bytes({ ...v2, version: Number.MAX_SAFE_INTEGER, release: 'v1.0.0' }), 'f').version).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('refuses times without an offset and an expiry equal to or before the issue time', () => {
    expect(refusedAs({ ...v2, issued: '2026-11-29 10:00', release: 'v1.0.0' }).message).toMatch(/issued:/);
    expect(
      parseChannel(
        bytes({ ...v2, issued: '2026-11-29T11:00:00+01:00', expires: '2026-11-29T10:00:01Z', release: 'v1.0.0' }),
        'f',
      ).expires,
    ).toBe('2026-11-29T10:00:01Z');
    expect(
      refusedAs({ ...v2, issued: '2026-11-29T11:00:00+01:00', expires: '2026-11-29T10:00:00Z', release: 'v1.0.0' })
        .message,
    ).toBe(
      'Cannot read channel "channels/staging.json": expires "2026-11-29T10:00:00Z" is not after issued "2026-11-29T11:00:00+01:00"',
    );
  });

  it('reads the flags it is given and defaults the others to false', () => {
    const release = parseChannel(
      bytes({ ...v2, release: 'v1.0.0', allowRollback: true, freeze: true, refresh: true }),
      'f',
    );
    expect(release).toEqual({
      schema: 2,
      environment: 'staging',
      version: 17,
      issued: v2.issued,
      expires: v2.expires,
      target: { release: 'v1.0.0' },
      allowRollback: true,
      freeze: true,
      refreshDatabaseImage: false,
      refresh: true,
    });
    const commit = parseChannel(bytes({ ...v2, commit: sha, images: { HEPHAESTUS_IMAGE_API: digest } }), 'f');
    expect([commit.allowRollback, commit.freeze, commit.refreshDatabaseImage, commit.refresh]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('refuses a release channel asking for refreshDatabaseImage (only commit channels rebuild the database)', () => {
    expect(refusedAs({ ...v2, release: 'v1.0.0', refreshDatabaseImage: true }).message).toMatch(
      /refreshDatabaseImage: unknown key/,
    );
  });

  it('refuses flags that are not booleans', () => {
    expect(refusedAs({ ...v2, release: 'v1.0.0', freeze: 'yes' }).message).toMatch(/freeze:/);
  });

  it('refuses a channel over 1 MiB before parsing it, and reads one of exactly 1 MiB', () => {
    const body = JSON.stringify({ ...v2, release: 'v1.0.0' });
    const exact = Buffer.concat([Buffer.from(body), Buffer.alloc(MAX_ARTIFACT_BYTES - body.length, 0x20)]);
    expect(parseChannel(exact, 'f').target).toEqual({ release: 'v1.0.0' });
    const over = Buffer.concat([exact, Buffer.from(' ')]);
    const error = thrown(ChannelError, () => parseChannel(over, 'channels/staging.json'));
    expect([error.code, error.message]).toEqual([
      'too-large',
      `Cannot read channel "channels/staging.json": ${MAX_ARTIFACT_BYTES + 1} bytes is over the limit`,
    ]);
  });

  it('refuses JSON that is not an object, naming the file', () => {
    for (const text of ['null', '[]', '"v1.0.0"', '7']) {
      const error = thrown(ChannelError, () => parseChannel(Buffer.from(text), 'channels/staging.json'));
      expect([error.code, error.message], text).toEqual([
        'malformed',
        'Cannot read channel "channels/staging.json": expected a JSON object',
      ]);
    }
  });

  it('names the file in a refusal of bytes that are not JSON', () => {
    const error = thrown(ChannelError, () => parseChannel(Buffer.from('{'), 'channels/staging.json'));
    expect(error.message).toMatch(/^Cannot read channel "channels\/staging\.json": not UTF-8 JSON \(.+\)$/);
    expect(error.details).toEqual({ file: 'channels/staging.json' });
  });
});

describe('parseChannel() of schema 1', () => {
  it('reads a channel that says "schema": 1 outright like one that omits it', () => {
    const said = parseChannel(bytes({ schema: 1, release: 'v1.0.0' }), 'f');
    expect(said).toEqual(parseChannel(bytes({ release: 'v1.0.0' }), 'f'));
    expect(said).toEqual({
      schema: 1,
      environment: undefined,
      version: undefined,
      issued: undefined,
      expires: undefined,
      target: { release: 'v1.0.0' },
      allowRollback: false,
      freeze: false,
      refreshDatabaseImage: false,
      refresh: false,
    });
  });

  it('reads the commit form with its pins and refreshDatabaseImage', () => {
    expect(
      parseChannel(
        bytes({
          schema: 1,
          commit: sha,
          images: { HEPHAESTUS_IMAGE_API: digest },
          refreshDatabaseImage: true,
          allowRollback: true,
        }),
        'f',
      ),
    ).toMatchObject({
      schema: 1,
      target: { commit: sha, images: { HEPHAESTUS_IMAGE_API: digest } },
      refreshDatabaseImage: true,
      allowRollback: true,
      refresh: false,
    });
  });

  it('refuses schema-2 fields in a schema-1 channel, naming the file', () => {
    const message = refusedAs({ schema: 1, release: 'v1.0.0', environment: 'staging' }).message;
    expect(message).toMatch(/^Cannot read channel \(schema 1\):\n/);
    expect(message).toContain('channels/staging.json');
  });

  it('refuses a schema given as a string, naming the value', () => {
    expect(refusedAs({ schema: '2', release: 'v1.0.0' }).message).toBe(
      'Cannot read channel "channels/staging.json": schema: expected 1 or 2 (value "2")',
    );
  });
});

describe('serializeChannel()', () => {
  it('writes schema 2 only', () => {
    const seed = parseChannel(bytes({ release: 'v1.0.0' }), 'f');
    expect(thrown(ChannelError, () => serializeChannel(seed)).message).toBe(
      'Cannot write a schema-1 channel: promotion writes schema 2 only',
    );
  });

  it('writes the canonical bytes: two-space JSON, a final newline, refresh only when set', () => {
    const c = parseChannel(bytes({ ...v2, release: 'v1.0.0' }), 'f');
    expect(serializeChannel(c)).toBe(
      '{\n  "schema": 2,\n  "environment": "staging",\n  "version": 17,\n  "issued": "2026-11-29T10:00:00Z",\n  "expires": "2026-12-06T10:00:00Z",\n  "release": "v1.0.0",\n  "allowRollback": false,\n  "freeze": false\n}\n',
    );
    expect(JSON.parse(serializeChannel({ ...c, refresh: true })).refresh).toBe(true);
    const commit = parseChannel(bytes({ ...v2, commit: sha, images: { HEPHAESTUS_IMAGE_API: digest } }), 'f');
    expect(JSON.parse(serializeChannel(commit))).toEqual({
      ...v2,
      commit: sha,
      images: { HEPHAESTUS_IMAGE_API: digest },
      refreshDatabaseImage: false,
      allowRollback: false,
      freeze: false,
    });
  });
});

describe('compareReleases(), majorOf() and channelIdentity()', () => {
  it('orders by major, then minor, then patch, numerically', () => {
    expect(compareReleases('v2.0.0', 'v1.9.9')).toBeGreaterThan(0);
    expect(compareReleases('v1.10.0', 'v1.9.0')).toBeGreaterThan(0);
    expect(compareReleases('v1.2.10', 'v1.2.9')).toBeGreaterThan(0);
    expect(compareReleases('v1.2.3', 'v1.2.4')).toBeLessThan(0);
    expect(compareReleases('v1.2.3', 'v1.2.3')).toBe(0);
  });

  it('refuses to compare what is not vX.Y.Z, naming both', () => {
    expect(() => compareReleases('v1.2.3', 'latest')).toThrow(
      'Cannot compare releases "v1.2.3" and "latest": expected vX.Y.Z',
    );
    expect(() => compareReleases('latest', 'v1.2.3')).toThrow(
      'Cannot compare releases "latest" and "v1.2.3": expected vX.Y.Z',
    );
    expect(() => majorOf('1.2.3')).toThrow('Cannot read release "1.2.3": expected vX.Y.Z');
    expect(majorOf('v12.0.1')).toBe(12);
  });

  it('the identity is SHA-256 of channel, one NUL byte and bundle: moving a byte across the boundary changes it', () => {
    const a = channelIdentity(Buffer.from('ab'), Buffer.from('c'));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(channelIdentity(Buffer.from('a'), Buffer.from('bc'))).not.toBe(a);
    expect(a).toBe(createHash('sha256').update('ab\0c').digest('hex'));
  });
});

describe('parseChannel() reports', () => {
  it('names the file in the details of a channel over 1 MiB', () => {
    const error = thrown(ChannelError, () =>
      parseChannel(Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 0x20), 'channels/staging.json'),
    );
    expect(error.details).toEqual({ file: 'channels/staging.json' });
  });

  it('refuses bytes that are not UTF-8 even inside a JSON string', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"release":"v1.0.0","freeze":false,"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    expect(thrown(ChannelError, () => parseChannel(bytes, 'f')).message).toMatch(
      /^Cannot read channel "f": not UTF-8 JSON/,
    );
  });

  it('puts every bad field on its own line', () => {
    const two = refusedAs({ ...v2, version: 0, environment: 'X', release: 'v1.0.0' }).message.split('\n');
    expect(two.slice(1).map((line) => line.split(':')[0])).toEqual(['channels/staging.json', 'channels/staging.json']);
    const seed = refusedAs({ release: 'latest', commit: 'HEAD' }).message.split('\n');
    expect(seed.length).toBeGreaterThan(2);
  });

  it('names the pattern a schema-1 release or commit missed', () => {
    expect(refusedAs({ release: 'latest' }).message).toContain('release: expected vX.Y.Z (value "latest")');
    expect(refusedAs({ commit: 'HEAD', images: {} }).message).toContain(
      'commit: expected 40 lower-case hex digits (value "HEAD")',
    );
  });

  it('a schema-1 commit channel does not ask for a database refresh unless it says so', () => {
    expect(
      parseChannel(bytes({ commit: sha, images: { HEPHAESTUS_IMAGE_API: digest } }), 'f').refreshDatabaseImage,
    ).toBe(false);
  });

  it('serializeChannel() refuses a schema-1 channel as malformed', () => {
    expect(thrown(ChannelError, () => serializeChannel(parseChannel(bytes({ release: 'v1.0.0' }), 'f'))).code).toBe(
      'malformed',
    );
  });
});
