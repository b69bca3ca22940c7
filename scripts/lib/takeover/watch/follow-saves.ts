// The one save-following loop of `takeover start` (which restarts what a save moves) and `takeover watch` (which
// reports it): saved files, debounced, re-fingerprinted, compared with the last fingerprints, one save at a time.
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { fingerprintImages } from '../../fingerprint/fingerprint-images.ts';
import { loadCatalogue } from '../../fingerprint/open-source.ts';
import { openWorktreeSource } from '../../fingerprint/worktree-source.ts';
import { watchFiles } from './file-watcher.ts';
import { fingerprintsAfterSave } from './fingerprints-after-save.ts';
import { decideRestarts } from './restart-decision.ts';
import type { RestartDecision } from './restart-decision.ts';

/** One debounced save and what it moved. */
export interface Save extends RestartDecision {
  readonly paths: readonly string[];
  /** The new fingerprints of the images the save touched (moved or not). */
  readonly after: ReadonlyMap<string, string>;
  /** How long deciding took (the debounce excluded). */
  readonly ms: number;
}

export interface FollowSavesOptions {
  readonly checkout: string;
  /** The catalogue saves are read against (a session's, as it started); default the working tree's. */
  readonly catalogue?: Catalogue;
  /** The images running here now: a moved one is to restart. */
  readonly running: () => ReadonlySet<string>;
  /** Called for each save in turn; the next save waits for it. */
  readonly onSave: (save: Save) => Promise<void> | void;
  readonly onError: (error: Error) => void;
  readonly debounceMs?: number;
}

export interface SaveFollower {
  /** Resolves when the saves already seen have been handled. */
  idle(): Promise<void>;
  /** Stops watching, then waits for the save being handled. */
  close(): Promise<void>;
}

export async function followSaves(options: FollowSavesOptions): Promise<SaveFollower> {
  const { checkout } = options;
  const source = await openWorktreeSource(checkout);
  const catalogue = options.catalogue ?? (await loadCatalogue(source));
  const known = new Map((await fingerprintImages(source, catalogue)).map((p) => [p.name, p.fingerprint]));
  let chain = Promise.resolve();
  const handle = async (paths: string[]) => {
    const started = performance.now();
    const after = await fingerprintsAfterSave(checkout, catalogue, paths);
    const decision = decideRestarts(catalogue, known, after, options.running());
    for (const [name, print] of after) known.set(name, print);
    await options.onSave({ paths, ...decision, after, ms: Math.round(performance.now() - started) });
  };
  const watcher = watchFiles(
    checkout,
    (paths) => {
      chain = chain.then(() => handle(paths)).catch((error: Error) => options.onError(error));
    },
    { ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }), onError: options.onError },
  );
  return {
    idle: () => chain,
    async close() {
      watcher.close();
      await chain;
    },
  };
}
