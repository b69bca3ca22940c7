// Every takeover command first clears what an expired lease left (the record, its windows, what it replaced), and
// stops what it can see of that lease's runtimes: this checkout's journaled ones, any holder's by label. A note that
// another command cleaned this checkout's lease is reported once, then removed.
import { cleanupTarget } from '../ownership/cleanup-target.ts';
import type { CleanupOutcome } from '../ownership/cleanup-target.ts';
import { sameHolder } from '../ownership/holder.ts';
import type { CleanedRecord } from '../ownership/ownership-records.ts';
import { writeOwnership } from '../ownership/ownership-store.ts';
import { isConflict } from '../ports/kube-error.ts';
import { stopLocalFor } from './stop-local.ts';
import type { TakeoverContext } from './takeover-context.ts';

export interface TakeoverCleanup extends CleanupOutcome {
  /** This checkout's lease that another command cleaned up, and what this command still stopped of it here. */
  readonly cleanedByOther?: CleanedRecord & { readonly here: readonly string[] };
}

export async function cleanUp(ctx: TakeoverContext): Promise<TakeoverCleanup> {
  const stopLocal = stopLocalFor(ctx);
  const outcome = await cleanupTarget({
    kube: ctx.kube,
    profile: ctx.profile,
    clock: ctx.clock,
    log: ctx.log,
    replacement: ctx.replacements['scale-to-zero'],
    stopLocal,
    cleaner: ctx.holder,
  });
  const note = outcome.snapshot.records.cleaned;
  if (note === undefined || !sameHolder(note.lease.holder, ctx.holder)) return outcome;
  // Its cleaner saw only its own Docker engine and connection: what still runs here of that lease stops now.
  const here = [...((await stopLocal(note.lease)) ?? [])];
  ctx.log(
    `your lease on [${note.lease.applications.join(', ')}] expired and was cleaned up by ${note.by} at ${note.at}`,
  );
  try {
    const snapshot = await writeOwnership(ctx.kube, outcome.snapshot, { cleaned: null });
    return { ...outcome, snapshot, cleanedByOther: { ...note, here } };
  } catch (error) {
    if (!isConflict(error)) throw error;
    return { ...outcome, cleanedByOther: { ...note, here } }; // another command wrote first: the note stays for later
  }
}
