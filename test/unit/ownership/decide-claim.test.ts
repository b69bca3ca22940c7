import { describe, expect, it } from 'vitest';
import { decideClaim } from '../../../scripts/lib/ownership/decide-claim.ts';
import type { OwnershipRecords } from '../../../scripts/lib/ownership/ownership-records.ts';

const me = { checkout: '/home/ana/platform', workstation: 'ana-laptop' };
const other = { checkout: '/home/bo/platform', workstation: 'bo-desk' };
const commit = 'a'.repeat(40);
const now = new Date('2026-10-14T12:00:00Z');
const none: OwnershipRecords = { revision: undefined, images: undefined, delivery: undefined, lease: undefined };
const lease = (expires: string) => ({
  schema: 1 as const,
  holder: other,
  applications: ['pharos'],
  commit,
  acquired: '2026-10-14T11:00:00Z',
  expires,
  state: 'held' as const,
});
const delivery = (holder: typeof me, expires: string) => ({
  schema: 1 as const,
  holder,
  commit,
  started: '2026-10-14T11:59:00Z',
  expires,
});

describe('decideClaim()', () => {
  it('writes a delivery record with started and expires when the target is free', () => {
    const decision = decideClaim(none, me, commit, now, 3_600_000);
    expect(decision).toEqual({
      kind: 'claim',
      removed: [],
      changes: {
        delivery: { schema: 1, holder: me, commit, started: '2026-10-14T12:00:00Z', expires: '2026-10-14T13:00:00Z' },
      },
    });
  });

  it('refuses while an unexpired lease holds the target, naming its holder and expiry', () => {
    const decision = decideClaim({ ...none, lease: lease('2026-10-14T13:00:00Z') }, me, commit, now, 60_000);
    expect(decision.kind).toBe('refuse');
    if (decision.kind === 'refuse') {
      expect(decision.code).toBe('lease-held');
      expect(decision.reason).toContain('bo-desk');
      expect(decision.reason).toContain('2026-10-14T13:00:00Z');
    }
  });

  it('removes an expired lease in the same write that claims the target', () => {
    const decision = decideClaim({ ...none, lease: lease('2026-10-14T11:59:59Z') }, me, commit, now, 60_000);
    expect(decision.kind).toBe('claim');
    if (decision.kind === 'claim') {
      expect(decision.changes.lease).toBeNull();
      expect(decision.removed[0]).toContain('expired lease');
    }
  });

  it("refuses while another checkout's delivery is unexpired", () => {
    const decision = decideClaim(
      { ...none, delivery: delivery(other, '2026-10-14T12:30:00Z') },
      me,
      commit,
      now,
      60_000,
    );
    expect(decision.kind === 'refuse' && decision.code).toBe('delivery-in-progress');
  });

  it("replaces this checkout's unfinished delivery record (a killed run) and an expired one of another", () => {
    const own = decideClaim({ ...none, delivery: delivery(me, '2026-10-14T12:30:00Z') }, me, commit, now, 60_000);
    expect(own.kind).toBe('claim');
    const stale = decideClaim({ ...none, delivery: delivery(other, '2026-10-14T12:00:00Z') }, me, commit, now, 60_000);
    expect(stale.kind === 'claim' && stale.removed[0]).toContain('expired delivery');
  });
});
