// What `takeover start` does with a save (watch/ follows them): restart the local runtimes of the images that moved,
// one at a time, keeping their loopback port so the route stays, and report the others.
import type { Catalogue } from '../catalogue/catalogue.ts';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import { runtimeOf } from './runtime/local-runtime.ts';
import type { TakeoverTarget } from './resolve-workloads.ts';
import { journal } from './lease-journal.ts';
import { journalRuntime, runtimeRequest, startRuntime } from './start-runtime.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';
import { followSaves } from './watch/follow-saves.ts';
import type { Save, SaveFollower } from './watch/follow-saves.ts';

export type SessionWatcher = SaveFollower;

/** Restarts the runtimes a save moved; a rebuild that fails leaves the running one serving. */
async function restartMoved(
  ctx: TakeoverContext,
  state: LeaseState,
  targets: readonly TakeoverTarget[],
  save: Save,
): Promise<void> {
  const { paths, restart, reconcile, candidates, ms } = save;
  // The session's workloads, ports and runtimes came from the catalogue it started with.
  if (paths.includes(CATALOGUE_PATH))
    ctx.log(
      `${CATALOGUE_PATH} changed: its new entries apply from the next takeover start; fingerprints are compared as the session's catalogue reads them`,
    );
  if (restart.length + reconcile.length + candidates.length === 0) return;
  ctx.log(`saved ${paths.join(', ')}: restart [${restart.join(', ')}] in ${ms} ms`);
  for (const name of reconcile) ctx.log(`${name} changed and has no takeover runtime: it needs make reconcile`);
  for (const name of candidates)
    ctx.log(`${name} changed; this session does not run it (takeover start ${name} to run it here)`);
  await journal(ctx, state, 'watch', {
    paths,
    restart,
    reconcile,
    candidates,
    ms,
    summary: `restart [${restart.join(', ')}]`,
  });
  for (const name of restart) {
    const index = state.runtimes.findIndex((h) => h.image === name);
    const old = state.runtimes[index];
    const target = targets.find((t) => t.image.name === name);
    if (old === undefined || target === undefined) continue;
    const runtime = ctx.runtimes[runtimeOf(old)];
    try {
      // Nothing is stopped before the new build succeeds.
      await runtime?.prepare?.(runtimeRequest(ctx, target, old.hostPort));
    } catch (error) {
      ctx.log(`cannot rebuild ${name}, the running one stays: ${(error as Error).message}`);
      await journal(ctx, state, 'watch:failed', {
        image: name,
        error: (error as Error).message,
        summary: `rebuild of ${name} failed; still running the last good one`,
      });
      continue;
    }
    await runtime?.stop(old);
    try {
      const next = await startRuntime(ctx, target, old.hostPort, state);
      state.runtimes[index] = next;
      await journalRuntime(ctx, state, next, 'restart');
    } catch (error) {
      // A runtime that will not start must not end the session: the next save tries again.
      ctx.log(`cannot restart ${name}: ${(error as Error).message}`);
    }
  }
}

export async function watchSession(
  ctx: TakeoverContext,
  state: LeaseState,
  catalogue: Catalogue,
  targets: readonly TakeoverTarget[],
  options: { debounceMs?: number } = {},
): Promise<SessionWatcher> {
  const follower = await followSaves({
    checkout: ctx.checkout,
    catalogue,
    running: () => new Set(state.runtimes.map((h) => h.image)),
    onSave: (save) => restartMoved(ctx, state, targets, save),
    onError: (error) => ctx.log(`watch: ${error.message}`),
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
  });
  ctx.log('watching saved files (editor temporaries and .local/ ignored)');
  return follower;
}
