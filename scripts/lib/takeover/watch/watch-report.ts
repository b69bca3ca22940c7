// `takeover watch`: follows saved files and reports what each save moves, as `start` decides it, without touching a
// runtime (the runtimes belong to the `start` process, which restarts them itself).
import type { Receipt } from '../../target/receipt.ts';
import { followSaves } from './follow-saves.ts';
import type { SaveFollower } from './follow-saves.ts';
import type { RestartDecision } from './restart-decision.ts';

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
): Promise<SaveFollower> {
  return followSaves({
    checkout,
    running: () => running,
    onSave: ({ paths, restart, reconcile, candidates, after, ms }) => {
      const inCluster = [...after]
        .filter(([name, print]) => receipt.images[name]?.fingerprint === print)
        .map(([name]) => name)
        .sort();
      report({ paths, restart, reconcile, candidates, inCluster, ms });
    },
    onError: (error) => options.onError?.(error),
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
  });
}
