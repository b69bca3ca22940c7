import type { DeliveryRecord, Holder, OwnershipChanges, OwnershipRecords } from './ownership-records.ts';
import { isExpired } from './ownership-records.ts';
import { describeHolder, sameHolder } from './holder.ts';
import { rfc3339 } from './record-time.ts';

export type ClaimDecision =
  | { readonly kind: 'refuse'; readonly code: 'lease-held' | 'delivery-in-progress'; readonly reason: string }
  | { readonly kind: 'claim'; readonly changes: OwnershipChanges; readonly removed: readonly string[] };

/**
 * Pure: may this checkout start a delivery? An unexpired lease refuses; so does an unexpired delivery of
 * another holder. Our own unexpired record is a killed run's (the caller holds the checkout's local lock).
 * Expired records are removed in the same compare-and-swap that writes ours.
 */
export function decideClaim(
  records: OwnershipRecords,
  holder: Holder,
  commit: string,
  now: Date,
  ttlMs: number,
): ClaimDecision {
  const { lease, delivery } = records;
  if (lease !== undefined && !isExpired(lease, now)) {
    return {
      kind: 'refuse',
      code: 'lease-held',
      reason: `a takeover lease of ${describeHolder(lease)} on [${lease.applications.join(', ')}] holds it until ${lease.expires}`,
    };
  }
  if (delivery !== undefined && !isExpired(delivery, now) && !sameHolder(delivery.holder, holder)) {
    return {
      kind: 'refuse',
      code: 'delivery-in-progress',
      reason: `a delivery of ${delivery.commit.slice(0, 12)} by ${describeHolder(delivery)} runs until ${delivery.expires}`,
    };
  }
  const removed: string[] = [];
  if (lease !== undefined) removed.push(`expired lease of ${describeHolder(lease)} (expired ${lease.expires})`);
  if (delivery !== undefined) {
    removed.push(
      sameHolder(delivery.holder, holder)
        ? `this checkout's unfinished delivery of ${delivery.commit.slice(0, 12)}`
        : `expired delivery of ${describeHolder(delivery)}`,
    );
  }
  const record: DeliveryRecord = {
    schema: 1,
    holder,
    commit,
    started: rfc3339(now),
    expires: rfc3339(new Date(now.getTime() + ttlMs)),
  };
  return { kind: 'claim', changes: { delivery: record, ...(lease !== undefined ? { lease: null } : {}) }, removed };
}
