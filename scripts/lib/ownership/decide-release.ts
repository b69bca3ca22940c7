import { describeHolder, sameHolder } from './holder.ts';
import type { Holder, LeaseRecord } from './lease-record.ts';
import { isExpired } from './lease-record.ts';

export type ReleaseDecision =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'refuse'; readonly reason: string }
  /** `breaks`: what a forced hand-back of another checkout's live lease does to it. */
  | { readonly kind: 'hand-back'; readonly record: LeaseRecord; readonly breaks: string | undefined };

/** Pure: `takeover release` hands back this checkout's lease or an expired one; another checkout's live lease needs --force. */
export function decideRelease(
  current: LeaseRecord | undefined,
  holder: Holder,
  now: Date,
  force: boolean,
): ReleaseDecision {
  if (current === undefined) return { kind: 'nothing' };
  if (sameHolder(current.holder, holder) || isExpired(current, now))
    return { kind: 'hand-back', record: current, breaks: undefined };
  const breaks =
    `the takeover of ${describeHolder(current)} on [${current.applications.join(', ')}] loses its lease: Argo CD restores those ` +
    `Applications now, its local runtimes keep running until its next renewal notices, and its uncommitted work is not delivered`;
  if (!force)
    return {
      kind: 'refuse',
      reason: `${describeHolder(current)} holds an unexpired lease until ${current.expires} (--force hands it back anyway: ${breaks})`,
    };
  return { kind: 'hand-back', record: current, breaks };
}
