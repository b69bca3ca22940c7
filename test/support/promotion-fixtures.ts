// The promotion tests' world: commits C(1)…C(5) on main, v1.0.0 at C(2) and v1.1.0 at C(4), staging on C(3).
import { planPromotion as planFor } from '../../scripts/lib/promotion/index.ts';
import type { CiHistory, CurrentChannel, History, PromotionRequest } from '../../scripts/lib/promotion/index.ts';
import type { Channel } from '../../scripts/lib/channel/index.ts';
import { linearHistory } from './ci-history-double.ts';

export const C = (n: number) => n.toString(16).padStart(40, '0');
export const pins = (n: number) => ({
  HEPHAESTUS_IMAGE_API: `ghcr.io/o/api@sha256:${n.toString(16).padStart(64, '0')}`,
});
export const history = linearHistory([C(1), C(2), C(3), C(4), C(5)], { 'v1.0.0': C(2), 'v1.1.0': C(4) });
export const NO_FLAGS = { allowRollback: false, freeze: false, refreshDatabaseImage: false };

/** Plans for staging, the environment that follows main. */
export const planPromotion = (request: PromotionRequest, now: CurrentChannel, h: History, ci: CiHistory) =>
  planFor(request, now, h, ci, 'staging');

/** Staging's signed channel today: commit C(3) with its pins, unless `over` says otherwise. */
export function current(over: Partial<Channel> = {}): CurrentChannel {
  return {
    kind: 'ok',
    channel: {
      schema: 2,
      environment: 'staging',
      version: 5,
      issued: 'x',
      expires: 'y',
      target: { commit: C(3), images: pins(3) },
      allowRollback: false,
      freeze: false,
      refreshDatabaseImage: false,
      refresh: false,
      ...over,
    },
  };
}
