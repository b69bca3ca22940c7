import { ToolkitError } from '../errors/toolkit-error.ts';

/** Promotion failures; `held` means another promotion holds the lock, `conflict` that deploy-state moved under us too often, `unknown-target` a tag or commit hosts could never find. */
export type PromotionErrorCode =
  | 'unreadable-channel'
  | 'unverified-channel'
  | 'history'
  | 'rollback'
  | 'locked'
  | 'conflict'
  | 'ci-lookup'
  | 'push-failed'
  | 'images'
  | 'unknown-target'
  | 'no-initial-channel'
  | 'freeze-not-following'
  | 'provenance'
  | 'deployment'
  | 'version-check';

export class PromotionError extends ToolkitError<PromotionErrorCode> {}
