import { join } from 'node:path';
import { ensureLocalDir } from '../fingerprint/local-state.ts';

export interface TargetStatePaths {
  readonly dir: string;
  readonly receipt: string;
  readonly journal: string;
}

/** `.local/metallo/<target>/` in the checkout: the receipt cache and the journal. */
export async function targetStatePaths(checkout: string, target: string): Promise<TargetStatePaths> {
  const dir = await ensureLocalDir(checkout, 'metallo', target);
  return { dir, receipt: join(dir, 'receipt.json'), journal: join(dir, 'journal.jsonl') };
}
