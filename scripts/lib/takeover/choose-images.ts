// Pure: which images a `takeover start` runs here, from the plan: the named ones, else every candidate.
import { UsageError } from '../errors/toolkit-error.ts';
import { LeaseError } from '../ownership/lease-error.ts';
import type { PlanRow } from './plan-takeover.ts';

export function chooseImages(
  rows: readonly PlanRow[],
  named: readonly string[],
  runtimes: readonly string[],
): string[] {
  const chosen = named.length > 0 ? [...named] : rows.filter((r) => r.status === 'candidate').map((r) => r.image);
  if (chosen.length === 0)
    throw new LeaseError(
      'not-a-candidate',
      'Cannot start a takeover: no image differs from the receipt and has a takeover runtime (name images to run them anyway)',
    );
  for (const name of chosen) {
    const row = rows.find((r) => r.image === name);
    if (row === undefined) throw new UsageError(`Cannot take over image "${name}": the catalogue has no such entry`);
    if (row.runtime === undefined || !runtimes.includes(row.runtime))
      throw new LeaseError(
        'not-a-candidate',
        `Cannot take over image "${name}": ${row.reasons.at(-1) ?? 'no takeover runtime'}; it needs make reconcile`,
      );
  }
  return chosen;
}
