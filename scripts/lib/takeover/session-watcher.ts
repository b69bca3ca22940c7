// The watcher `start` runs: on saved files, re-fingerprint only the images they touch, restart the local runtimes
// of images that moved (one at a time, keeping their loopback port so the route stays), report the others.
import type { Catalogue } from '../catalogue/catalogue.ts';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import { fingerprintImages } from '../fingerprint/fingerprint-images.ts';
import { openWorktreeSource } from '../fingerprint/worktree-source.ts';
import { watchFiles } from './watch/file-watcher.ts';
import type { FileWatcher } from './watch/file-watcher.ts';
import { runtimeOf } from './runtime/local-runtime.ts';
import { decideRestarts, imagesTouching } from './watch/restart-decision.ts';
import type { RestartDecision } from './watch/restart-decision.ts';
import type { TakeoverTarget } from './resolve-workloads.ts';
import { journal } from './run-steps.ts';
import { journalRuntime, runtimeRequest, startRuntime } from './start-runtime.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';

/** Fingerprints of the images the paths touch, from the working tree now. */
export async function fingerprintsAfterSave(
  checkout: string,
  catalogue: Catalogue,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const touched = imagesTouching(catalogue, paths, CATALOGUE_PATH);
  if (touched.length === 0) return new Map();
  const source = await openWorktreeSource(checkout);
  const prints = await fingerprintImages(source, catalogue, { images: touched.map((i) => i.name) });
  return new Map(prints.map((p) => [p.name, p.fingerprint]));
}

export interface SessionWatcher {
  /** Resolves when the restarts already decided have finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function watchSession(
  ctx: TakeoverContext,
  state: LeaseState,
  catalogue: Catalogue,
  targets: readonly TakeoverTarget[],
  options: { debounceMs?: number } = {},
): Promise<SessionWatcher> {
  const source = await openWorktreeSource(ctx.checkout);
  const known = new Map((await fingerprintImages(source, catalogue)).map((p) => [p.name, p.fingerprint]));
  let chain = Promise.resolve();
  const react = async (paths: string[]) => {
    // The session's workloads, ports and runtimes came from the catalogue it started with.
    if (paths.includes(CATALOGUE_PATH))
      ctx.log(
        `${CATALOGUE_PATH} changed: its new entries apply from the next takeover start; fingerprints are compared as the session's catalogue reads them`,
      );
    const started = performance.now();
    const after = await fingerprintsAfterSave(ctx.checkout, catalogue, paths);
    const decision: RestartDecision = decideRestarts(
      catalogue,
      known,
      after,
      new Set(state.runtimes.map((h) => h.image)),
    );
    for (const [name, print] of after) known.set(name, print);
    const ms = Math.round(performance.now() - started);
    if (decision.restart.length + decision.reconcile.length + decision.candidates.length === 0) return;
    ctx.log(`saved ${paths.join(', ')}: restart [${decision.restart.join(', ')}] in ${ms} ms`);
    for (const name of decision.reconcile)
      ctx.log(`${name} changed and has no takeover runtime: it needs make reconcile`);
    for (const name of decision.candidates)
      ctx.log(`${name} changed; this session does not run it (takeover start ${name} to run it here)`);
    await journal(ctx, state, 'watch', { paths, ...decision, ms, summary: `restart [${decision.restart.join(', ')}]` });
    for (const name of decision.restart) {
      const index = state.runtimes.findIndex((h) => h.image === name);
      const old = state.runtimes[index];
      const target = targets.find((t) => t.image.name === name);
      if (old === undefined || target === undefined) continue;
      const runtime = ctx.runtimes[runtimeOf(old)];
      try {
        // A build that fails leaves the running one serving: nothing is stopped before it succeeds.
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
        const next = await startRuntime(ctx, target, old.hostPort);
        state.runtimes[index] = next;
        await journalRuntime(ctx, state, next, 'restart');
      } catch (error) {
        // A runtime that will not start must not end the session: the next save tries again.
        ctx.log(`cannot restart ${name}: ${(error as Error).message}`);
      }
    }
  };
  const watcher: FileWatcher = watchFiles(
    ctx.checkout,
    (paths) => {
      chain = chain.then(() => react(paths)).catch((error: Error) => ctx.log(`watch: ${error.message}`));
    },
    { ...options, onError: (error) => ctx.log(`watch: ${error.message}`) },
  );
  ctx.log('watching saved files (editor temporaries and .local/ ignored)');
  return {
    idle: () => chain,
    async close() {
      watcher.close();
      await chain;
    },
  };
}
