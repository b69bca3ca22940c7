import { appliedView } from '../applied-record.ts';
import { fetchAndDecide } from '../steps-decide.ts';
import type { Step } from '../tick-context.ts';
import { tickHelm } from './chart-prepare.ts';

/**
 * Step 3 on a chart host: the shared decision, plus one question when it says "nothing to do": does Helm run the
 * applied target? A host just switched from Compose has a record of a target no chart runs; it applies the same
 * verified request with Helm (the seed's "Switch a host between Compose and the chart"). Helm is read only then.
 */
export const decideChart: Step = async (ctx, state) => {
  const result = await fetchAndDecide(ctx, state);
  if (result.next || result.outcome.result !== 'noop' || state.applied === undefined) return result;
  const view = appliedView(state.applied);
  const target = view.release ?? view.commit;
  const status = await tickHelm(ctx).status();
  const running = (status?.config as { release?: { name?: unknown } } | null | undefined)?.release?.name;
  if (status?.info.status === 'deployed' && running === target) return result;
  ctx.log('decide', {
    status: 'switch',
    applied: target ?? 'none',
    helm: status === undefined ? 'no release' : `${status.info.status} ${String(running)}`,
  });
  return { next: true, fields: { ...(result.fields ?? {}), decision: 'apply', reason: 'chart-not-running' } };
};
