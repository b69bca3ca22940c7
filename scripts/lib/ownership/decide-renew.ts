import { describeHolder } from './holder.ts';
import { rfc3339 } from './record-time.ts';
import type { LeaseRecord } from './lease-record.ts';
import { isExpired, sameLease } from './lease-record.ts';

export type RenewDecision =
  | { readonly kind: 'renew'; readonly record: LeaseRecord }
  | { readonly kind: 'lost'; readonly reason: string };

/**
 * Pure: a renewal moves `expires` to now + ttl (the start stays). A lease that expired is never revived: Argo CD
 * may already have restored the workloads, so the holder hands back instead.
 */
export function decideRenew(
  current: LeaseRecord | undefined,
  ours: LeaseRecord,
  now: Date,
  ttlMs: number,
): RenewDecision {
  if (current === undefined) return { kind: 'lost', reason: 'the lease record was removed' };
  if (!sameLease(current, ours))
    return {
      kind: 'lost',
      reason: `the lease now belongs to ${describeHolder(current)} (acquired ${current.acquired})`,
    };
  if (isExpired(current, now))
    return {
      kind: 'lost',
      reason: `the lease expired at ${current.expires} (the workstation slept or lost the API server)`,
    };
  if (current.state === 'handing-back') return { kind: 'lost', reason: 'the lease is being handed back' };
  const expires = rfc3339(new Date(now.getTime() + ttlMs));
  // Stryker disable next-line EqualityOperator: on equal times both branches give the same expires
  return { kind: 'renew', record: { ...current, expires: expires > current.expires ? expires : current.expires } };
}
