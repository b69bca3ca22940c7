import type { OwnershipRecords } from './ownership-records.ts';
import { describeHolder, sameHolder } from './holder.ts';
import type { Holder, LeaseRecord } from './lease-record.ts';
import { isExpired, newLease } from './lease-record.ts';

export interface AcquireInput {
  readonly records: OwnershipRecords;
  readonly holder: Holder;
  readonly applications: readonly string[];
  readonly commit: string;
  readonly now: Date;
  readonly ttlMs: number;
  /** A process of this checkout is running a takeover of this target now. */
  readonly liveHere: boolean;
}

export type AcquireDecision =
  | { readonly kind: 'refuse'; readonly code: 'lease-held' | 'delivery-in-progress'; readonly reason: string }
  /** Write this new record; `expired` is a lease to remove (record and window) first. */
  | { readonly kind: 'acquire'; readonly record: LeaseRecord; readonly expired: LeaseRecord | undefined }
  /** This checkout's own unexpired lease on the same Applications, left by a killed run: continue it. */
  | { readonly kind: 'resume'; readonly record: LeaseRecord }
  /** This checkout's own unexpired lease on other Applications: hand it back, then acquire. */
  | { readonly kind: 'replace'; readonly old: LeaseRecord };

const sameApps = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** Pure: acquire step (1) of the spec. One developer per dev box: another checkout's unexpired lease always refuses. */
export function decideAcquire(input: AcquireInput): AcquireDecision {
  const { lease, delivery } = input.records;
  const live = lease !== undefined && !isExpired(lease, input.now);
  if (live && !sameHolder(lease.holder, input.holder)) {
    return {
      kind: 'refuse',
      code: 'lease-held',
      reason: `${describeHolder(lease)} holds a takeover lease on [${lease.applications.join(', ')}] until ${lease.expires}`,
    };
  }
  if (delivery !== undefined && !isExpired(delivery, input.now)) {
    return {
      kind: 'refuse',
      code: 'delivery-in-progress',
      reason: `a delivery of ${delivery.commit.slice(0, 12)} by ${describeHolder(delivery)} runs until ${delivery.expires}`,
    };
  }
  if (live) {
    if (input.liveHere)
      return {
        kind: 'refuse',
        code: 'lease-held',
        reason: `a takeover process of this checkout holds the lease on [${lease.applications.join(', ')}] until ${lease.expires}`,
      };
    if (sameApps(lease.applications, input.applications)) return { kind: 'resume', record: lease };
    return { kind: 'replace', old: lease };
  }
  return {
    kind: 'acquire',
    record: newLease(input.holder, input.applications, input.commit, input.now, input.ttlMs),
    expired: lease,
  };
}
