// `takeover status` and `takeover watch` read the lease after the clean-up: what holds it and what runs here.
import { cleanUp } from './clean-up.ts';
import { liveStatus } from './live-status.ts';
import { takeoverStatus } from './status.ts';
import type { TakeoverStatus } from './status.ts';
import type { TakeoverContext } from './takeover-context.ts';

export async function readTakeoverStatus(ctx: TakeoverContext): Promise<TakeoverStatus> {
  const cleaned = await cleanUp(ctx);
  const lease = cleaned.snapshot.records.lease;
  return takeoverStatus(
    ctx.profile.name,
    cleaned,
    ctx.paths.journal,
    ctx.clock.now(),
    lease === undefined ? undefined : await liveStatus(ctx, lease),
  );
}

/** The images whose local runtime this checkout's lease has running now (none without a lease). */
export async function imagesRunningHere(ctx: TakeoverContext): Promise<Set<string>> {
  const lease = (await cleanUp(ctx)).snapshot.records.lease;
  const running = new Set<string>();
  if (lease !== undefined) for (const r of (await liveStatus(ctx, lease)).runtimes) if (r.running) running.add(r.image);
  return running;
}
