// Which trust each role gets from the host's settings, the warnings a shared trust earns, and the settings that name paths.
import { describe, expect, it } from 'vitest';
import { hostConfigSchema } from '../../../scripts/lib/host/host-config.ts';
import type { HostConfig } from '../../../scripts/lib/host/host-config.ts';
import { roleTrust, trustWarnings, hostTrustPolicy } from '../../../scripts/lib/host/host-trust.ts';

const base = { HEPHAESTUS_CHANNEL: 'staging', HEPHAESTUS_REPOSITORY: '/srv/platform.git' };
const config = (over: Record<string, string>): HostConfig => hostConfigSchema.parse({ ...base, ...over });
const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
const RELEASE = 'https://github.com/acme/platform/.github/workflows/release.yml@refs/tags/v1.2.3';

describe('roleTrust() gives each role only its own trust', () => {
  it('per-role key lists: channels from the promotion keys, locks from the release keys, no warning', () => {
    const c = config({ HEPHAESTUS_PROMOTE_KEYS: '/etc/p.pem', HEPHAESTUS_RELEASE_KEYS: '/etc/r.pem' });
    expect(roleTrust(c, 'promote')).toMatchObject({ kind: 'keys', file: '/etc/p.pem', shared: false });
    expect(roleTrust(c, 'release')).toMatchObject({ kind: 'keys', file: '/etc/r.pem', shared: false });
    expect(trustWarnings(c)).toEqual([]);
  });

  it('the release role never falls back to the promotion identity', async () => {
    const c = config({ HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE, HEPHAESTUS_TRUSTED_ROOT: '/nonexistent.json' });
    expect(roleTrust(c, 'release')).toEqual({ kind: 'none' });
    await expect(hostTrustPolicy(c, 'release')).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(
        /Cannot verify release locks: set HEPHAESTUS_RELEASE_KEYS .* or HEPHAESTUS_RELEASE_IDENTITY/,
      ),
    });
  });

  it('the shared HEPHAESTUS_TRUSTED_KEYS still works for both roles, with a warning that names the risk', () => {
    const c = config({ HEPHAESTUS_TRUSTED_KEYS: '/etc/k.pem' });
    expect(roleTrust(c, 'promote')).toMatchObject({ kind: 'keys', shared: true });
    expect(roleTrust(c, 'release')).toMatchObject({ kind: 'keys', shared: true });
    expect(trustWarnings(c)).toEqual([
      expect.stringMatching(/a promotion key can sign a release lock and a release key can sign channels/),
    ]);
  });

  it("a role's own setting wins over the shared list", () => {
    const c = config({ HEPHAESTUS_TRUSTED_KEYS: '/etc/k.pem', HEPHAESTUS_RELEASE_IDENTITY: RELEASE });
    expect(roleTrust(c, 'release')).toEqual({
      kind: 'keyless',
      identity: RELEASE,
      variable: 'HEPHAESTUS_RELEASE_IDENTITY',
    });
  });

  it('one keyless identity for both roles earns a warning', () => {
    expect(
      trustWarnings(config({ HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE, HEPHAESTUS_RELEASE_IDENTITY: PROMOTE })),
    ).toEqual([expect.stringMatching(/name the same identity/)]);
    expect(
      trustWarnings(config({ HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE, HEPHAESTUS_RELEASE_IDENTITY: RELEASE })),
    ).toEqual([]);
  });

  it('an identity pattern is named as one, and is never mistaken for an exact identity', () => {
    const c = config({
      HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE,
      HEPHAESTUS_RELEASE_IDENTITY_PATTERN:
        'https://github\\.com/acme/platform/\\.github/workflows/release\\.yml@refs/tags/v.*',
    });
    expect(roleTrust(c, 'release')).toMatchObject({
      kind: 'keyless',
      identity: { pattern: expect.any(String) },
      variable: 'HEPHAESTUS_RELEASE_IDENTITY_PATTERN',
    });
  });
});

describe('hostConfigSchema refuses settings a host cannot use safely', () => {
  it('needs some trust for channels', () => {
    const parsed = hostConfigSchema.safeParse({ ...base, HEPHAESTUS_RELEASE_KEYS: '/etc/r.pem' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/who may sign channels/);
  });

  it('refuses an exact identity and a pattern for the same role', () => {
    const parsed = hostConfigSchema.safeParse({
      ...base,
      HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE,
      HEPHAESTUS_PROMOTE_IDENTITY_PATTERN: '.*',
    });
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/not both/);
  });

  it('refuses an identity pattern that is not a regular expression', () => {
    const parsed = hostConfigSchema.safeParse({ ...base, HEPHAESTUS_PROMOTE_IDENTITY_PATTERN: 'release(' });
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/not a valid regular expression/);
  });

  it.each(['../app', 'core /etc/app', '-p', 'core app;rm', 'App'])('refuses HEPHAESTUS_STACKS=%j', (stacks) => {
    expect(
      hostConfigSchema.safeParse({ ...base, HEPHAESTUS_PROMOTE_KEYS: '/k', HEPHAESTUS_STACKS: stacks }).success,
    ).toBe(false);
  });

  it.each(['core app', 'core,app', 'chart', ''])('accepts HEPHAESTUS_STACKS=%j', (stacks) => {
    expect(
      hostConfigSchema.safeParse({ ...base, HEPHAESTUS_PROMOTE_KEYS: '/k', HEPHAESTUS_STACKS: stacks }).success,
    ).toBe(true);
  });

  it('bounds the network by default: 600 s per fetch, 2048 MiB per fetch', () => {
    expect(config({ HEPHAESTUS_PROMOTE_KEYS: '/k' })).toMatchObject({
      HEPHAESTUS_FETCH_TIMEOUT: 600,
      HEPHAESTUS_FETCH_MAX_MIB: 2048,
    });
  });
});
