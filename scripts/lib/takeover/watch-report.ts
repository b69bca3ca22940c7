// `takeover watch`: follows saved files and reports what each save moves, as `start`'s watcher decides it, without
// touching a runtime (the runtimes belong to the `start` process; its own watcher restarts them).
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Receipt } from '../target/receipt.ts';
import { fingerprintImages } from '../fingerprint/fingerprint-images.ts';
import { loadCatalogue } from '../fingerprint/open-source.ts';
import { openWorktreeSource } from '../fingerprint/worktree-source.ts';
import { watchFiles } from './file-watcher.ts';
import { decideRestarts } from './restart-decision.ts';
import type { RestartDecision } from './restart-decision.ts';
import { fingerprintsAfterSave } from './session-watcher.ts';

export interface WatchReport extends RestartDecision {
  readonly paths: readonly string[];
  readonly ms: number;
  /** Moved images whose fingerprint now equals the receipt's again. */
  readonly inCluster: readonly string[];
}

export async function watchReports(
  checkout: string,
  receipt: Receipt,
  running: ReadonlySet<string>,
  report: (r: WatchReport) => void,
  options: { debounceMs?: number; onError?: (e: Error) => void } = {},
): Promise<{ close(): void }> {
  const source = await openWorktreeSource(checkout);
  const catalogue: Catalogue = await loadCatalogue(source);
  const known = new Map((await fingerprintImages(source, catalogue)).map((p) => [p.name, p.fingerprint]));
  let chain = Promise.resolve();
  const watcher = watchFiles(
    checkout,
    (paths) => {
      chain = chain
        .then(async () => {
          const started = performance.now();
          const after = await fingerprintsAfterSave(checkout, catalogue, paths);
          const decision = decideRestarts(catalogue, known, after, running);
          for (const [name, print] of after) known.set(name, print);
          const inCluster = [...after]
            .filter(([name, print]) => receipt.images[name]?.fingerprint === print)
            .map(([name]) => name)
            .sort();
          report({ paths, ...decision, inCluster, ms: Math.round(performance.now() - started) });
        })
        .catch((error: Error) => options.onError?.(error));
    },
    options,
  );
  return { close: () => watcher.close() };
}
