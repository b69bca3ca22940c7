import { cleanupTarget } from '../../ownership/cleanup-target.ts';
import type { CleanupOptions } from '../../ownership/cleanup-target.ts';
import { decideClaim } from '../../ownership/decide-claim.ts';
import { readOwnership, writeOwnership } from '../../ownership/ownership-store.ts';
import type { OwnershipSnapshot } from '../../ownership/ownership-store.ts';
import { isConflict } from '../../ports/kube-error.ts';
import { ownershipRef } from '../delivery-context.ts';
import type { DeliveryContext, Step } from '../delivery-context.ts';
import { DeliveryError } from '../delivery-error.ts';

/**
 * Refuses while a lease or another delivery holds the target; else writes our `delivery` record (one CAS, re-decided
 * on 409). A lease that expired since the first clean-up is cleaned up the same way first (what it replaced, its
 * windows, its record), then the claim is decided again.
 */
export const claim: Step = {
  name: 'claim',
  async run(ctx, state) {
    const cleared: string[] = [];
    // The clean-up every command runs first, unless the delivery started it early (`make deploy` cannot: its layers
    // make the cluster).
    let next: Promise<OwnershipSnapshot> | undefined =
      state.firstRead ??
      cleanupTarget(cleanupOptions(ctx)).then((cleaned) => {
        cleared.push(...cleaned.done);
        return cleaned.snapshot;
      });
    for (let attempt = 1; ; attempt++) {
      const snapshot = await (next ?? readOwnership(ctx.kube, ownershipRef(ctx)));
      next = undefined;
      const decision = decideClaim(
        snapshot.records,
        ctx.holder,
        state.commit,
        ctx.clock.now(),
        ctx.profile.delivery.ttl,
      );
      if (decision.kind === 'refuse') {
        throw new DeliveryError(
          decision.code,
          `Cannot deliver ${state.commit.slice(0, 12)} to target "${ctx.profile.name}": ${decision.reason}`,
          { details: { target: ctx.profile.name } },
        );
      }
      if (snapshot.records.lease !== undefined && attempt < 5) {
        const cleaned = await cleanupTarget(cleanupOptions(ctx));
        cleared.push(...cleaned.done);
        next = Promise.resolve(cleaned.snapshot);
        continue;
      }
      try {
        state.ownership = await writeOwnership(ctx.kube, snapshot, decision.changes);
      } catch (error) {
        if (isConflict(error) && attempt < 5) continue; // someone wrote first: read again and re-decide
        throw error;
      }
      state.claimed = true;
      const removed = [...cleared, ...decision.removed];
      // The clean-up's lines say what each did; the claim's own removals are records.
      const summary = [
        'delivery record written',
        ...(cleared.length > 0 ? [`cleaned up: ${cleared.join(', ')}`] : []),
        ...(decision.removed.length > 0 ? [`removed ${decision.removed.join(', ')}`] : []),
      ].join('; ');
      return { summary, fields: { removed } };
    }
  },
};

function cleanupOptions(ctx: DeliveryContext): CleanupOptions {
  const { kube, profile, clock, log, stopLeaseRuntimes } = ctx;
  return { kube, profile, clock, log, ...(stopLeaseRuntimes === undefined ? {} : { stopLocal: stopLeaseRuntimes }) };
}
