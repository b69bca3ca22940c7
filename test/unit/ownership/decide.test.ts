import { describe, expect, it } from 'vitest';
import {
  decideAcquire,
  decideCleanup,
  decideRelease,
  decideRenew,
  leaseWindow,
  newLease,
} from '../../../scripts/lib/ownership/index.ts';
import type { LeaseRecord } from '../../../scripts/lib/ownership/index.ts';

const NOW = new Date('2026-10-14T12:00:00Z');
const ME = { checkout: '/home/ana/platform', workstation: 'ana-laptop' };
const OTHER = { checkout: '/home/bo/platform', workstation: 'bo-laptop' };
const COMMIT = 'c'.repeat(40);
const TTL = 12 * 3_600_000;
const lease = (holder = OTHER, expires = '2026-10-14T20:00:00Z', extra: Partial<LeaseRecord> = {}): LeaseRecord => ({
  schema: 1,
  holder,
  applications: ['pharos'],
  commit: COMMIT,
  acquired: '2026-10-14T08:00:00Z',
  expires,
  state: 'held',
  ...extra,
});
const records = (l?: LeaseRecord, delivery?: unknown) => ({
  revision: COMMIT,
  images: {},
  lease: l,
  delivery: delivery as never,
});
const input = (l?: LeaseRecord, extra = {}) => ({
  records: records(l),
  holder: ME,
  applications: ['pharos'],
  commit: COMMIT,
  now: NOW,
  ttlMs: TTL,
  liveHere: false,
  ...extra,
});

describe('decideAcquire()', () => {
  it('writes an acquiring record with a 12 h expiry on a free target', () => {
    const d = decideAcquire(input());
    expect(d).toMatchObject({
      kind: 'acquire',
      record: {
        state: 'acquiring',
        holder: ME,
        acquired: '2026-10-14T12:00:00Z',
        expires: '2026-10-15T00:00:00Z',
        applications: ['pharos'],
      },
    });
  });
  it('refuses a second checkout while another checkout holds an unexpired lease', () => {
    expect(decideAcquire(input(lease()))).toMatchObject({ kind: 'refuse', code: 'lease-held' });
  });
  it('refuses while an unexpired delivery runs', () => {
    const d = decideAcquire({
      ...input(),
      records: records(undefined, {
        schema: 1,
        holder: OTHER,
        commit: COMMIT,
        started: '2026-10-14T11:59:00Z',
        expires: '2026-10-14T12:59:00Z',
      }),
    });
    expect(d).toMatchObject({ kind: 'refuse', code: 'delivery-in-progress' });
  });
  it('gives the same checkout a new lease after its old one expired', () => {
    const d = decideAcquire(input(lease(ME, '2026-10-14T11:00:00Z')));
    expect(d).toMatchObject({
      kind: 'acquire',
      expired: { expires: '2026-10-14T11:00:00Z' },
      record: { acquired: '2026-10-14T12:00:00Z' },
    });
  });
  it("continues this checkout's interrupted acquire, refuses it while a live process holds it", () => {
    const mine = lease(ME, '2026-10-14T20:00:00Z', { state: 'acquiring' });
    expect(decideAcquire(input(mine))).toEqual({ kind: 'resume', record: mine });
    expect(decideAcquire(input(mine, { liveHere: true }))).toMatchObject({ kind: 'refuse', code: 'lease-held' });
    expect(decideAcquire(input(mine, { applications: ['pharos', 'themelio-compat'] }))).toEqual({
      kind: 'replace',
      old: mine,
    });
  });
});

describe('decideRenew()', () => {
  const ours = lease(ME);
  it('moves expires to now + ttl and keeps the start', () => {
    expect(decideRenew(ours, ours, NOW, TTL)).toEqual({
      kind: 'renew',
      record: { ...ours, expires: '2026-10-15T00:00:00Z' },
    });
  });
  it('never revives an expired lease (sleeping workstation)', () => {
    expect(decideRenew(ours, ours, new Date('2026-10-14T20:00:01Z'), TTL)).toMatchObject({
      kind: 'lost',
      reason: expect.stringContaining('expired'),
    });
  });
  it('is lost when the record was removed or is another lease', () => {
    expect(decideRenew(undefined, ours, NOW, TTL).kind).toBe('lost');
    expect(decideRenew(lease(OTHER), ours, NOW, TTL).kind).toBe('lost');
    expect(decideRenew({ ...ours, acquired: '2026-10-14T09:00:00Z' }, ours, NOW, TTL).kind).toBe('lost');
  });
});

describe('decideRelease()', () => {
  it("refuses another checkout's unexpired lease without --force and says what --force breaks", () => {
    const d = decideRelease(lease(), ME, NOW, false);
    expect(d).toMatchObject({ kind: 'refuse', reason: expect.stringContaining('--force') });
    expect(decideRelease(lease(), ME, NOW, true)).toMatchObject({
      kind: 'hand-back',
      breaks: expect.stringContaining('loses its lease'),
    });
  });
  it('hands back our own lease or any expired one, and does nothing without a lease', () => {
    expect(decideRelease(lease(ME), ME, NOW, false)).toMatchObject({ kind: 'hand-back', breaks: undefined });
    expect(decideRelease(lease(OTHER, '2026-10-14T11:00:00Z'), ME, NOW, false)).toMatchObject({ kind: 'hand-back' });
    expect(decideRelease(undefined, ME, NOW, false)).toEqual({ kind: 'nothing' });
  });
});

describe('decideCleanup()', () => {
  const held = newLease(ME, ['pharos'], COMMIT, new Date('2026-10-14T11:00:00Z'), TTL);
  const ours = leaseWindow(held);
  const nightly = { kind: 'deny', schedule: '0 22 * * *', duration: '8h', applications: ['*'], manualSync: true };
  it('leaves a healthy lease and every foreign window alone', () => {
    expect(decideCleanup(held, [nightly, ours], NOW)).toEqual([]);
  });
  it('removes an expired lease (record and window)', () => {
    expect(decideCleanup(held, [ours], new Date('2026-10-15T00:00:00Z'))).toEqual([
      { kind: 'remove-expired', record: held },
    ]);
  });
  it('removes a lease-shaped window without a record, never a hand-written one', () => {
    expect(decideCleanup(undefined, [nightly, ours], NOW)).toEqual([{ kind: 'remove-orphan-window', window: ours }]);
  });
  it('completes the window of an acquiring or held record, removes a record left handing back', () => {
    expect(decideCleanup(held, [nightly], NOW)).toEqual([{ kind: 'complete-window', record: held }]);
    const leaving = { ...held, state: 'handing-back' as const };
    expect(decideCleanup(leaving, [], NOW)).toEqual([{ kind: 'remove-record', record: leaving }]);
  });
});
