// The lease record is the ownership ConfigMap's `lease` key; its schema lives with the other ownership records.
import type { Holder, LeaseRecord } from './ownership-records.ts';
import { sameHolder } from './holder.ts';
import { rfc3339 } from './record-time.ts';

export { leaseRecordSchema, isExpired } from './ownership-records.ts';
export type { LeaseRecord, Holder } from './ownership-records.ts';

export const LEASE_TTL_MS = 12 * 3_600_000;
export const RENEW_EVERY_MS = 5 * 60_000;

export function newLease(
  holder: Holder,
  applications: readonly string[],
  commit: string,
  now: Date,
  ttlMs: number,
): LeaseRecord {
  return {
    schema: 1,
    holder,
    applications: [...new Set(applications)].sort(),
    commit,
    acquired: rfc3339(now),
    expires: rfc3339(new Date(now.getTime() + ttlMs)),
    state: 'acquiring',
  };
}

/** One lease is told from another by holder and acquire time (a new lease of the same checkout has a new `acquired`). */
export function sameLease(a: LeaseRecord | undefined, b: LeaseRecord | undefined): boolean {
  return a !== undefined && b !== undefined && a.acquired === b.acquired && sameHolder(a.holder, b.holder);
}
