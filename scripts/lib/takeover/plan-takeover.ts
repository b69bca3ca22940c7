// `takeover plan`: working-tree fingerprints against the receipt (spec): in cluster, candidate, needs make reconcile.
import type { Catalogue } from '../catalogue/catalogue.ts';
import { explainChange } from '../fingerprint/explain-change.ts';
import type { Receipt } from '../target/receipt.ts';
import { fingerprintImages } from '../fingerprint/fingerprint-images.ts';
import type { ImageFingerprint } from '../fingerprint/fingerprint-images.ts';
import { loadCatalogue } from '../fingerprint/open-source.ts';
import { openWorktreeSource } from '../fingerprint/worktree-source.ts';
import type { HashProgress } from '../fingerprint/tree-source.ts';

export type PlanStatus = 'in-cluster' | 'candidate' | 'needs-reconcile';

export interface PlanRow {
  readonly image: string;
  readonly application: string;
  readonly status: PlanStatus;
  readonly runtime: string | undefined;
  readonly fingerprint: string;
  readonly deployed: string | undefined;
  /** Why it differs (`--explain`: the changed inputs), or why it cannot be taken over. */
  readonly reasons: readonly string[];
}

/** Pure: equal → in cluster; different with a runtime this version ships → candidate; otherwise → needs make reconcile. */
export function classify(
  catalogue: Catalogue,
  current: readonly ImageFingerprint[],
  receipt: Receipt,
  runtimes: readonly string[],
  explained?: ReadonlyMap<string, string>,
): PlanRow[] {
  return catalogue.images.map((entry) => {
    const now = current.find((f) => f.name === entry.name);
    const deployed = receipt.images[entry.name]?.fingerprint;
    const fingerprint = now?.fingerprint ?? '';
    const runtime = entry.takeover?.runtime;
    const base = { image: entry.name, application: entry.application ?? '-', runtime, fingerprint, deployed };
    if (deployed === undefined)
      return { ...base, status: 'needs-reconcile', reasons: ['not in the receipt: never delivered'] };
    if (deployed === fingerprint) return { ...base, status: 'in-cluster', reasons: [] };
    const before = explained?.get(entry.name);
    const changed =
      before !== undefined && now?.encoding !== undefined
        ? explainChange(before, now.encoding)
        : ['fingerprint differs from the receipt'];
    if (runtime === undefined)
      return {
        ...base,
        status: 'needs-reconcile',
        reasons: [...changed, 'no takeover runtime (catalogue has no "takeover")'],
      };
    if (!runtimes.includes(runtime))
      return {
        ...base,
        status: 'needs-reconcile',
        reasons: [...changed, `runtime "${runtime}" is not available in this version`],
      };
    return { ...base, status: 'candidate', reasons: changed };
  });
}

export interface PlanOptions {
  readonly checkout: string;
  readonly receipt: Receipt;
  readonly runtimes: readonly string[];
  readonly explain?: boolean;
  readonly progress?: HashProgress;
}

export async function planTakeover(options: PlanOptions): Promise<{ catalogue: Catalogue; rows: PlanRow[] }> {
  const source = await openWorktreeSource(options.checkout);
  const catalogue = await loadCatalogue(source);
  const current = await fingerprintImages(source, catalogue, {
    progress: options.progress,
    encodings: options.explain === true,
  });
  let explained: Map<string, string> | undefined;
  if (options.explain === true) {
    const differing = current
      .filter(
        (f) =>
          options.receipt.images[f.name] !== undefined && options.receipt.images[f.name]?.fingerprint !== f.fingerprint,
      )
      .map((f) => f.name);
    if (differing.length > 0) {
      // Only --explain reads the receipt's commit: the tree reader loads then, not on every save.
      const { openGitTreeSource } = await import('../fingerprint/git-tree-source.ts');
      const tree = await openGitTreeSource(options.checkout, options.receipt.commit);
      const deployed = await fingerprintImages(tree, await loadCatalogue(tree), { images: differing, encodings: true });
      explained = new Map(deployed.map((f) => [f.name, f.encoding ?? '']));
    }
  }
  return { catalogue, rows: classify(catalogue, current, options.receipt, options.runtimes, explained) };
}
