import { describe, expect, it } from 'vitest';
import { parseChannel, serializeChannel, ChannelError } from '../../../scripts/lib/channel/index.ts';
import { thrown } from '../../support/thrown.ts';

const sha = 'a'.repeat(40);
const digest = `ghcr.io/o/api@sha256:${'b'.repeat(64)}`;
const base = {
  schema: 2,
  environment: 'staging',
  version: 17,
  issued: '2026-11-29T10:00:00Z',
  expires: '2026-12-06T10:00:00Z',
};
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('parseChannel', () => {
  it('reads the release form of schema 2 with default flags', () => {
    const c = parseChannel(bytes({ ...base, release: 'v1.2.3' }), 'channels/staging.json');
    expect(c).toMatchObject({
      schema: 2,
      environment: 'staging',
      version: 17,
      target: { release: 'v1.2.3' },
      allowRollback: false,
      freeze: false,
      refresh: false,
    });
  });

  it('reads the commit form of schema 2 with its image pins', () => {
    const c = parseChannel(
      bytes({ ...base, commit: sha, images: { HEPHAESTUS_IMAGE_API: digest }, refreshDatabaseImage: true }),
      'f',
    );
    expect(c.target).toEqual({ commit: sha, images: { HEPHAESTUS_IMAGE_API: digest } });
    expect(c.refreshDatabaseImage).toBe(true);
  });

  it('reads a seed (schema 1) channel, which has no environment, version or expiry', () => {
    expect(parseChannel(bytes({ release: 'v1.0.0', freeze: true }), 'f')).toMatchObject({
      schema: 1,
      environment: undefined,
      version: undefined,
      expires: undefined,
      freeze: true,
    });
  });

  it('names the file, the field and the value of every bad field', () => {
    const error = thrown(ChannelError, () =>
      parseChannel(bytes({ ...base, version: -1, release: 'latest' }), 'channels/staging.json'),
    );
    expect(error.code).toBe('malformed');
    expect(error.message).toMatch(/channels\/staging\.json: version: .*\(value -1\)/);
    expect(error.message).toMatch(/channels\/staging\.json: release: expected vX\.Y\.Z \(value "latest"\)/);
  });

  it('refuses a channel naming both a release and a commit', () => {
    expect(
      thrown(ChannelError, () => parseChannel(bytes({ ...base, release: 'v1.0.0', commit: sha, images: {} }), 'f'))
        .message,
    ).toMatch(/release: unknown key/);
  });

  it('refuses an image bound to a variable that is not HEPHAESTUS_IMAGE_*', () => {
    expect(
      thrown(ChannelError, () => parseChannel(bytes({ ...base, commit: sha, images: { API: digest } }), 'f')).message,
    ).toMatch(/HEPHAESTUS_IMAGE/);
  });

  it('refuses an image pinned by tag instead of digest', () => {
    expect(
      thrown(ChannelError, () =>
        parseChannel(bytes({ ...base, commit: sha, images: { HEPHAESTUS_IMAGE_API: 'ghcr.io/o/api:latest' } }), 'f'),
      ).message,
    ).toMatch(/sha256/);
  });

  it('refuses expires not after issued', () => {
    expect(
      thrown(ChannelError, () => parseChannel(bytes({ ...base, expires: base.issued, release: 'v1.0.0' }), 'f'))
        .message,
    ).toMatch(/not after issued/);
  });

  it('refuses an unknown schema, non-JSON and non-UTF-8 bytes', () => {
    expect(thrown(ChannelError, () => parseChannel(bytes({ ...base, schema: 3 }), 'f')).message).toMatch(
      /schema: expected 1 or 2 \(value 3\)/,
    );
    expect(thrown(ChannelError, () => parseChannel(Buffer.from('{'), 'f')).message).toMatch(/not UTF-8 JSON/);
    expect(thrown(ChannelError, () => parseChannel(Buffer.from([0x7b, 0xff, 0x7d]), 'f')).message).toMatch(
      /not UTF-8 JSON/,
    );
  });

  it('reads back exactly what serializeChannel writes', () => {
    const c = parseChannel(
      bytes({ ...base, commit: sha, images: { HEPHAESTUS_IMAGE_API: digest }, freeze: true, refresh: true }),
      'f',
    );
    expect(parseChannel(Buffer.from(serializeChannel(c)), 'f')).toEqual(c);
  });
});
