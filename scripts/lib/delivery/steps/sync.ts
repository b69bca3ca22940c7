import { syncApplications } from '../../argocd/sync-applications.ts';
import { SyncError } from '../../argocd/sync-error.ts';
import { applicationsOf, builtApplications } from '../delivery-applications.ts';
import type { Step } from '../delivery-context.ts';
import { DeliveryError } from '../delivery-error.ts';

export const sync: Step = {
  name: 'sync',
  async run(ctx, state) {
    const children = applicationsOf(state);
    // The children as read during the push are a fair first look only when the root's inputs did not change.
    const early = state.rootPatched === true ? [] : ((await state.applications?.catch(() => undefined)) ?? []).slice(1);
    const known = [...(state.root === undefined ? [] : [state.root]), ...early.filter((o) => o !== undefined)];
    const states = await syncApplications({
      kube: ctx.kube,
      namespace: ctx.profile.namespaces.argocd,
      root: ctx.profile.root.application,
      children,
      commit: state.commit,
      timeoutMs: ctx.profile.delivery.syncTimeout,
      clock: ctx.clock,
      log: ctx.log,
      pollMs: ctx.pollMs,
      known,
      resync: builtApplications(state),
    }).catch((error: unknown) => {
      // Record, root inputs and receipt already name the commit: say so, so nobody expects the previous one.
      if (error instanceof SyncError && error.code === 'sync-failed' && error.details?.['operation'] !== undefined) {
        const why = error.message.replace(/^Cannot finish the delivery of [0-9a-f]+: /, '');
        throw new DeliveryError(
          'sync-failed',
          `Delivered ${state.commit.slice(0, 12)} (the ownership ConfigMap, the root inputs and the receipt name it) but ${why}`,
          {
            details: { ...error.details, commit: state.commit, recorded: true },
            cause: error,
          },
        );
      }
      if (!(error instanceof SyncError) || error.code !== 'sync-timeout') throw error;
      const why = error.message.replace(/^Cannot finish the delivery of [0-9a-f]+: Applications not /, '');
      throw new DeliveryError(
        'sync-timeout',
        `Delivered ${state.commit.slice(0, 12)} (the ownership ConfigMap, the root inputs and the receipt name it) but Argo CD did not report it ${why}`,
        {
          details: { ...error.details, commit: state.commit, recorded: true },
          cause: error,
        },
      );
    });
    return { summary: `Synced and Healthy at ${state.commit.slice(0, 12)}: ${states.map((s) => s.name).join(', ')}` };
  },
};
