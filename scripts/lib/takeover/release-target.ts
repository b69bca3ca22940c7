// `takeover release` (and `stop` with no start running): hand the lease back from any state, another checkout's
// unexpired one only when forced.
import { decideRelease } from '../ownership/decide-release.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import { cleanUp } from './clean-up.ts';
import { handBack, stateFor } from './hand-back.ts';
import type { TakeoverContext } from './takeover-context.ts';

export type Release =
  /** No lease was held; `cleaned` says what an expired one left and the clean-up removed. */
  | { readonly kind: 'nothing'; readonly cleaned: readonly string[] }
  /** This checkout's lease expired and another command cleaned it up: who, when, and what was done. */
  | {
      readonly kind: 'cleaned-by-other';
      readonly applications: readonly string[];
      readonly by: string;
      readonly at: string;
      readonly done: readonly string[];
    }
  | { readonly kind: 'released'; readonly applications: readonly string[] };

export async function releaseTarget(ctx: TakeoverContext, force: boolean): Promise<Release> {
  const cleaned = await cleanUp(ctx);
  const decision = decideRelease(cleaned.snapshot.records.lease, ctx.holder, ctx.clock.now(), force);
  if (decision.kind === 'refuse')
    throw new LeaseError('lease-held', `Cannot release target "${ctx.profile.name}": ${decision.reason}`);
  const other = cleaned.cleanedByOther;
  if (decision.kind === 'nothing' && other !== undefined)
    return {
      kind: 'cleaned-by-other',
      applications: other.lease.applications,
      by: other.by,
      at: other.at,
      done: [...other.done, ...other.here],
    };
  if (decision.kind === 'nothing') return { kind: 'nothing', cleaned: cleaned.done };
  if (decision.breaks !== undefined) ctx.log(`--force: ${decision.breaks}`);
  await handBack(ctx, stateFor(decision.record));
  return { kind: 'released', applications: decision.record.applications };
}
