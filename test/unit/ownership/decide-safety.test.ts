// What a lease decides at its edges: resume or replace, renew or hand back. Each test protects one decision a mutant
// changed while the other lease tests still passed.
import { describe, expect, it } from 'vitest';
import {
  decideAcquire,
  decideRelease,
  decideRenew,
  describeHolder,
  LEASE_TTL_MS,
  newLease,
  RENEW_EVERY_MS,
  sameLease,
} from '../../../scripts/lib/ownership/index.ts';
import { LeaseError } from '../../../scripts/lib/ownership/index.ts';
import type { AcquireInput, LeaseErrorCode, LeaseRecord } from '../../../scripts/lib/ownership/index.ts';

const NOW = new Date('2026-10-14T12:00:00Z');
const ME = { checkout: '/home/ana/platform', workstation: 'ana-laptop' };
const OTHER = { checkout: '/home/bo/platform', workstation: 'bo-laptop' };
const COMMIT = 'c'.repeat(40);
const TTL = 12 * 3_600_000;

const lease = (extra: Partial<LeaseRecord> = {}): LeaseRecord => ({
  schema: 1,
  holder: ME,
  applications: ['pharos', 'themelio-compat'],
  commit: COMMIT,
  acquired: '2026-10-14T08:00:00Z',
  expires: '2026-10-14T20:00:00Z',
  state: 'held',
  ...extra,
});
const delivery = (holder = OTHER, expires = '2026-10-14T12:30:00Z') => ({
  schema: 1 as const,
  holder,
  commit: 'd'.repeat(40),
  started: '2026-10-14T11:30:00Z',
  expires,
});
const input = (
  over: Partial<AcquireInput> & { current?: LeaseRecord; delivering?: ReturnType<typeof delivery> } = {},
): AcquireInput => {
  const { current, delivering, ...rest } = over;
  return {
    records: { revision: COMMIT, images: {}, lease: current, delivery: delivering },
    holder: ME,
    applications: ['pharos', 'themelio-compat'],
    commit: COMMIT,
    now: NOW,
    ttlMs: TTL,
    liveHere: false,
    ...rest,
  };
};

describe('decideAcquire(): takeover start after a killed run of this checkout', () => {
  it('resumes the old lease only for exactly the same Applications, in any order', () => {
    const mine = lease();
    expect(decideAcquire(input({ current: mine, applications: ['themelio-compat', 'pharos'] }))).toEqual({
      kind: 'resume',
      record: mine,
    });
    expect(
      decideAcquire(
        input({
          current: { ...mine, applications: ['themelio-compat', 'pharos'] },
          applications: ['pharos', 'themelio-compat'],
        }),
      ).kind,
    ).toBe('resume');
  });

  it('replaces the old lease for other Applications, so the requested ones get their own deny window', () => {
    const mine = lease();
    expect(decideAcquire(input({ current: mine, applications: ['pharos'] }))).toEqual({ kind: 'replace', old: mine });
    expect(decideAcquire(input({ current: mine, applications: ['pharos', 'themelio-compat', 'web'] }))).toEqual({
      kind: 'replace',
      old: mine,
    });
    expect(decideAcquire(input({ current: mine, applications: ['pharos', 'web'] }))).toEqual({
      kind: 'replace',
      old: mine,
    });
    expect(decideAcquire(input({ current: mine, applications: ['web', 'themelio-compat'] }))).toEqual({
      kind: 'replace',
      old: mine,
    });
  });

  it('refuses while a live takeover process of this checkout holds the lease, naming its Applications and expiry', () => {
    expect(decideAcquire(input({ current: lease(), liveHere: true }))).toEqual({
      kind: 'refuse',
      code: 'lease-held',
      reason:
        'a takeover process of this checkout holds the lease on [pharos, themelio-compat] until 2026-10-14T20:00:00Z',
    });
  });

  it('a lease of the same checkout path on another workstation is another holder', () => {
    const theirs = lease({ holder: { ...ME, workstation: 'ana-desktop' } });
    expect(decideAcquire(input({ current: theirs }))).toMatchObject({ kind: 'refuse', code: 'lease-held' });
  });
});

describe('decideAcquire(): refusals name who holds the target and until when', () => {
  it("another checkout's lease", () => {
    expect(decideAcquire(input({ current: lease({ holder: OTHER }) }))).toEqual({
      kind: 'refuse',
      code: 'lease-held',
      reason:
        'bo-laptop:/home/bo/platform holds a takeover lease on [pharos, themelio-compat] until 2026-10-14T20:00:00Z',
    });
  });

  it('a delivery in progress, even our own (a delivery and a takeover never overlap)', () => {
    expect(decideAcquire(input({ delivering: delivery() }))).toEqual({
      kind: 'refuse',
      code: 'delivery-in-progress',
      reason: 'a delivery of dddddddddddd by bo-laptop:/home/bo/platform runs until 2026-10-14T12:30:00Z',
    });
    expect(decideAcquire(input({ delivering: delivery(ME) }))).toMatchObject({
      kind: 'refuse',
      code: 'delivery-in-progress',
    });
  });

  it('an expired delivery does not block, and a delivery expiring exactly now has expired', () => {
    expect(decideAcquire(input({ delivering: delivery(OTHER, '2026-10-14T11:59:59Z') })).kind).toBe('acquire');
    expect(decideAcquire(input({ delivering: delivery(OTHER, '2026-10-14T12:00:00Z') })).kind).toBe('acquire');
  });

  it("another checkout's lease expiring exactly now is expired: acquire, removing it first", () => {
    const old = lease({ holder: OTHER, expires: '2026-10-14T12:00:00Z' });
    expect(decideAcquire(input({ current: old }))).toMatchObject({
      kind: 'acquire',
      expired: old,
      record: { holder: ME, state: 'acquiring' },
    });
  });

  it('a free target gets a new lease with nothing to remove', () => {
    expect(decideAcquire(input())).toEqual({
      kind: 'acquire',
      expired: undefined,
      record: newLease(ME, ['pharos', 'themelio-compat'], COMMIT, NOW, TTL),
    });
  });
});

describe('newLease()', () => {
  it('records each Application once, sorted, with the acquire time and now + ttl to the second', () => {
    expect(newLease(ME, ['web', 'pharos', 'web'], COMMIT, new Date('2026-10-14T12:00:00.750Z'), 60_000)).toEqual({
      schema: 1,
      holder: ME,
      applications: ['pharos', 'web'],
      commit: COMMIT,
      acquired: '2026-10-14T12:00:00Z',
      expires: '2026-10-14T12:01:00Z',
      state: 'acquiring',
    });
  });

  it('a lease lasts 12 hours and is renewed every 5 minutes', () => {
    expect([LEASE_TTL_MS, RENEW_EVERY_MS]).toEqual([43_200_000, 300_000]);
  });
});

describe('sameLease()', () => {
  it('tells leases apart by holder and acquire time', () => {
    const a = lease();
    expect(sameLease(a, { ...a, expires: '2026-10-15T00:00:00Z', state: 'handing-back' })).toBe(true);
    expect(sameLease(a, { ...a, acquired: '2026-10-14T08:00:01Z' })).toBe(false);
    expect(sameLease(a, { ...a, holder: { ...ME, checkout: '/home/ana/other' } })).toBe(false);
    expect(sameLease(a, { ...a, holder: { ...ME, workstation: 'ana-desktop' } })).toBe(false);
    expect(sameLease(undefined, a)).toBe(false);
    expect(sameLease(a, undefined)).toBe(false);
  });

  it('describeHolder() is workstation:checkout', () => {
    expect(describeHolder(lease())).toBe('ana-laptop:/home/ana/platform');
  });
});

describe('decideRenew()', () => {
  const ours = lease();

  it('stops renewing a lease that is being handed back', () => {
    expect(decideRenew({ ...ours, state: 'handing-back' }, ours, NOW, TTL)).toEqual({
      kind: 'lost',
      reason: 'the lease is being handed back',
    });
  });

  it('renews an acquiring lease too', () => {
    expect(decideRenew({ ...ours, state: 'acquiring' }, ours, NOW, TTL)).toMatchObject({
      kind: 'renew',
      record: { state: 'acquiring', expires: '2026-10-15T00:00:00Z' },
    });
  });

  it('never moves expires earlier (a renewal with a shorter ttl keeps the later expiry)', () => {
    expect(decideRenew(ours, ours, NOW, 60_000)).toEqual({ kind: 'renew', record: ours });
    expect(decideRenew(ours, ours, NOW, 8 * 3_600_000)).toEqual({ kind: 'renew', record: ours });
    expect(decideRenew(ours, ours, NOW, 8 * 3_600_000 + 1000)).toEqual({
      kind: 'renew',
      record: { ...ours, expires: '2026-10-14T20:00:01Z' },
    });
  });

  it('keeps the acquire time and Applications it renews', () => {
    const renewed = decideRenew(ours, ours, NOW, TTL);
    expect(renewed).toEqual({ kind: 'renew', record: { ...ours, expires: '2026-10-15T00:00:00Z' } });
  });

  it('a lease expiring exactly now is lost, one second before it renews', () => {
    expect(decideRenew(ours, ours, new Date('2026-10-14T20:00:00Z'), TTL).kind).toBe('lost');
    expect(decideRenew(ours, ours, new Date('2026-10-14T19:59:59Z'), TTL).kind).toBe('renew');
  });

  it('says why the lease was lost', () => {
    expect(decideRenew(undefined, ours, NOW, TTL)).toEqual({ kind: 'lost', reason: 'the lease record was removed' });
    expect(decideRenew(lease({ holder: OTHER, acquired: '2026-10-14T11:00:00Z' }), ours, NOW, TTL)).toEqual({
      kind: 'lost',
      reason: 'the lease now belongs to bo-laptop:/home/bo/platform (acquired 2026-10-14T11:00:00Z)',
    });
    expect(decideRenew(ours, ours, new Date('2026-10-14T21:00:00Z'), TTL)).toEqual({
      kind: 'lost',
      reason: 'the lease expired at 2026-10-14T20:00:00Z (the workstation slept or lost the API server)',
    });
  });
});

describe('decideRelease()', () => {
  it('says whose lease --force would break and what that does', () => {
    const theirs = lease({ holder: OTHER });
    expect(decideRelease(theirs, ME, NOW, false)).toEqual({
      kind: 'refuse',
      reason:
        'bo-laptop:/home/bo/platform holds an unexpired lease until 2026-10-14T20:00:00Z (--force hands it back anyway: the takeover of ' +
        'bo-laptop:/home/bo/platform on [pharos, themelio-compat] loses its lease: Argo CD restores those Applications now, its local runtimes ' +
        'keep running until its next renewal notices, and its uncommitted work is not delivered)',
    });
    expect(decideRelease(theirs, ME, NOW, true)).toEqual({
      kind: 'hand-back',
      record: theirs,
      breaks:
        'the takeover of bo-laptop:/home/bo/platform on [pharos, themelio-compat] loses its lease: Argo CD restores those Applications now, ' +
        'its local runtimes keep running until its next renewal notices, and its uncommitted work is not delivered',
    });
  });

  it("hands back another checkout's lease that expired exactly now without --force", () => {
    const theirs = lease({ holder: OTHER, expires: '2026-10-14T12:00:00Z' });
    expect(decideRelease(theirs, ME, NOW, false)).toEqual({ kind: 'hand-back', record: theirs, breaks: undefined });
  });

  it('hands back our own live lease without --force and breaks nothing', () => {
    const mine = lease();
    expect(decideRelease(mine, ME, NOW, false)).toEqual({ kind: 'hand-back', record: mine, breaks: undefined });
  });
});

describe('LeaseError exit statuses (docs/takeover.md)', () => {
  it('3 when another holder has the target, 2 for what the user must fix, 1 for failures', () => {
    const exit = (code: LeaseErrorCode) => new LeaseError(code, 'm').exitCode;
    expect(['lease-held', 'delivery-in-progress'].map((c) => exit(c as LeaseErrorCode))).toEqual([3, 3]);
    expect(
      ['no-receipt', 'not-a-candidate', 'bad-workload', 'project-writer', 'unsafe-build'].map((c) =>
        exit(c as LeaseErrorCode),
      ),
    ).toEqual([2, 2, 2, 2, 2]);
    expect(
      ['lease-lost', 'no-lease', 'runtime-failed', 'settle-timeout'].map((c) => exit(c as LeaseErrorCode)),
    ).toEqual([1, 1, 1, 1]);
  });

  it('keeps its code, message, details and cause', () => {
    const cause = new Error('socket hang up');
    const error = new LeaseError('lease-lost', 'Cannot renew the lease', { details: { target: 'local' }, cause });
    expect([error.code, error.message, error.details, error.cause]).toEqual([
      'lease-lost',
      'Cannot renew the lease',
      { target: 'local' },
      cause,
    ]);
  });
});
