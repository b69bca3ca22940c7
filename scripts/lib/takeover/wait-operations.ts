import { applicationState } from '../argocd/application-state.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import { isConflict } from '../ports/kube-error.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import type { TakeoverContext } from './takeover-context.ts';
import { leasedApplications } from '../ownership/lease-projects.ts';
import type { LeasedApplication } from '../ownership/lease-projects.ts';

/**
 * Acquire step (3): waits until no operation runs on the leased Applications. One for a superseded revision (not the
 * receipt's commit), or one our window now blocks, is terminated as `argocd app terminate-op` does.
 */
export async function waitOperations(
  ctx: TakeoverContext,
  applications: readonly string[],
  commit: string,
  first?: readonly LeasedApplication[],
): Promise<{ apps: LeasedApplication[]; terminated: string[] }> {
  const ns = ctx.profile.namespaces.argocd;
  const deadline = ctx.clock.now().getTime() + ctx.profile.delivery.syncTimeout;
  const terminated: string[] = [];
  let apps = first ? [...first] : await leasedApplications(ctx.kube, ns, applications);
  let pause = ctx.pollMs;
  for (;;) {
    const busy = apps
      .map((a) => ({ app: a, state: applicationState(a.object) }))
      .filter((s) => s.state.operation !== undefined);
    if (busy.length === 0) return { apps, terminated };
    for (const { app, state } of busy) {
      const op = state.operation!;
      const blocked = op.message?.includes('blocked by sync window') === true;
      if (op.phase === 'Running' && (op.revision !== commit || blocked) && !terminated.includes(app.name)) {
        ctx.log(
          `acquire: terminating the operation of ${app.name} for ${op.revision?.slice(0, 12) ?? '?'}${blocked ? ' (blocked by the lease window)' : ' (superseded)'}`,
        );
        // Compare-and-swap on the object as read, as delivery does: an operation that changed meanwhile is re-read.
        if (await terminateAsRead(ctx, ns, app.object)) terminated.push(app.name);
      }
    }
    if (ctx.clock.now().getTime() > deadline) {
      throw new LeaseError(
        'settle-timeout',
        `Cannot acquire: operations still run on ${busy.map((b) => b.app.name).join(', ')} after ${Math.round(ctx.profile.delivery.syncTimeout / 1000)} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
    apps = await leasedApplications(ctx.kube, ns, applications);
  }
}

async function terminateAsRead(ctx: TakeoverContext, ns: string, object: KubeObject): Promise<boolean> {
  try {
    await ctx.kube.mergePatch('Application', ns, object.metadata.name, {
      metadata: { resourceVersion: object.metadata.resourceVersion },
      status: { operationState: { phase: 'Terminating' } },
    });
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}
