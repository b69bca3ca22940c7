// Every takeover command first clears what an expired lease left (the record, its windows, what it replaced), and
// stops this checkout's own runtimes of a lease it removes.
import { cleanupTarget } from '../ownership/cleanup-target.ts';
import type { CleanupOutcome } from '../ownership/cleanup-target.ts';
import { stopLocalFor } from './session.ts';
import type { TakeoverContext } from './takeover-context.ts';

export function cleanUp(ctx: TakeoverContext): Promise<CleanupOutcome> {
  return cleanupTarget({
    kube: ctx.kube,
    profile: ctx.profile,
    clock: ctx.clock,
    log: ctx.log,
    replacement: ctx.replacements['scale-to-zero'],
    stopLocal: stopLocalFor(ctx),
  });
}
