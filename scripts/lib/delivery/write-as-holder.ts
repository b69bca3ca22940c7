import { sameHolder } from '../ownership/holder.ts';
import { readOwnership, writeOwnership } from '../ownership/ownership-store.ts';
import type { OwnershipSnapshot } from '../ownership/ownership-store.ts';
import { isConflict } from '../ports/kube-error.ts';
import { DeliveryError } from './delivery-error.ts';
import { ownershipRef } from './delivery-context.ts';
import type { DeliveryContext, DeliveryState } from './delivery-context.ts';

/** Our delivery record must still be there; a 409 re-reads, and only our own record lets us write again. */
export async function writeAsHolder(
  ctx: DeliveryContext,
  state: DeliveryState,
  changes: Parameters<typeof writeOwnership>[2],
): Promise<OwnershipSnapshot> {
  let snapshot = state.ownership ?? (await readOwnership(ctx.kube, ownershipRef(ctx)));
  for (let attempt = 1; ; attempt++) {
    const record = snapshot.records.delivery;
    if (record === undefined || !sameHolder(record.holder, ctx.holder) || record.commit !== state.commit) {
      throw new DeliveryError(
        'conflict',
        `Cannot record the delivery of ${state.commit.slice(0, 12)}: the ownership ConfigMap no longer holds this delivery's record`,
        { details: { found: record } },
      );
    }
    try {
      return await writeOwnership(ctx.kube, snapshot, changes);
    } catch (error) {
      if (!isConflict(error) || attempt >= 5) throw error;
      snapshot = await readOwnership(ctx.kube, ownershipRef(ctx));
    }
  }
}
