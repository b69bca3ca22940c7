import type { HistoryRow } from './helm-output.ts';

/** What the history asks for before an upgrade (the seed's recovery paragraphs). Pure. */
export type RecoveryPlan =
  | { readonly kind: 'install' }
  | { readonly kind: 'upgrade' }
  | { readonly kind: 'rollback'; readonly revision: number; readonly pending: HistoryRow }
  | { readonly kind: 'never-finished'; readonly pending: HistoryRow }
  /** An uninstall that stopped: Helm upgrades nothing over it ("has no deployed releases"); running it again ends it. */
  | { readonly kind: 'uninstalling'; readonly pending: HistoryRow }
  | { readonly kind: 'pending-cutover'; readonly pending: HistoryRow; readonly from: string };

/** `hephaestus-1.2.3` -> 1 (the chart's major version), or undefined. */
export function chartMajor(chart: string): number | undefined {
  const match = /-(\d+)\.\d+\.\d+(?:[-+].*)?$/.exec(chart);
  return match === null ? undefined : Number(match[1]);
}

/**
 * A pending-* last revision blocks every upgrade. Within one major version: roll back to the newest deployed or
 * superseded revision, then upgrade. Without such a revision Helm never finished the release (an operator uninstalls).
 * Across major versions it is a stopped cutover: never roll old workloads onto a migrated database.
 */
export function planRecovery(history: readonly HistoryRow[] | undefined): RecoveryPlan {
  const last = history?.at(-1);
  if (history === undefined || last === undefined || last.status === 'uninstalled') return { kind: 'install' };
  if (last.status === 'uninstalling') return { kind: 'uninstalling', pending: last };
  if (!last.status.startsWith('pending-')) return { kind: 'upgrade' };
  const good = [...history].reverse().find((r) => r.status === 'deployed' || r.status === 'superseded');
  if (good === undefined) return { kind: 'never-finished', pending: last };
  const [from, to] = [chartMajor(good.chart), chartMajor(last.chart)];
  if (from !== undefined && to !== undefined && from !== to)
    return { kind: 'pending-cutover', pending: last, from: good.chart };
  return { kind: 'rollback', revision: good.revision, pending: last };
}
