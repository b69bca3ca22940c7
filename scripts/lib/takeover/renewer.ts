// Renewal: every 5 minutes the window's duration, then the record's `expires` (same start), two requests.
import { readOwnership, writeOwnership } from '../ownership/ownership-store.ts';
import { decideRenew } from '../ownership/decide-renew.ts';
import { isOurWindow, leaseWindow } from '../ownership/lease-window.ts';
import { isConflict } from '../ports/kube-error.ts';
import { readWindows, replaceWindow, appendWindow } from '../ownership/project-windows.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';

export type RenewOutcome =
  | { readonly kind: 'renewed'; readonly expires: string }
  | { readonly kind: 'lost'; readonly reason: string };

/**
 * One renewal from what was last written (no reads in the usual case). The window is extended before the record,
 * so a crash between the two never leaves the record outliving its window. A lease that expired is lost, not revived.
 */
export async function renewOnce(ctx: TakeoverContext, state: LeaseState): Promise<RenewOutcome> {
  const ns = ctx.profile.namespaces.argocd;
  for (let attempt = 1; ; attempt++) {
    const snapshot = state.snapshot ?? (await readOwnership(ctx.kube, { namespace: ns, name: ctx.profile.ownership }));
    const decision = decideRenew(snapshot.records.lease, state.record, ctx.clock.now(), ctx.ttlMs);
    if (decision.kind === 'lost') return decision;
    const window = leaseWindow(decision.record);
    try {
      const projects =
        state.projects.length > 0 ? state.projects : [await readWindows(ctx.kube, ns, ctx.profile.project)];
      const next = [];
      for (const project of projects) {
        const after = await replaceWindow(ctx.kube, ns, project, (w) => isOurWindow(w, state.record), window);
        // Someone removed our window while the record is still ours: put it back (the lease is unexpired).
        next.push(
          after ??
            (await appendWindow(ctx.kube, ns, await readWindows(ctx.kube, ns, project.project), window, (w) =>
              isOurWindow(w, state.record),
            )),
        );
      }
      state.projects = next;
      state.snapshot = await writeOwnership(ctx.kube, snapshot, { lease: decision.record });
      state.record = decision.record;
      return { kind: 'renewed', expires: decision.record.expires };
    } catch (error) {
      if (!isConflict(error) || attempt >= 5) throw error;
      state.snapshot = undefined; // another command wrote: read again and re-decide
    }
  }
}
