// The receipt a takeover compares with: without one, there is nothing delivered to take over from.
import { readReceipt } from '../target/receipt.ts';
import type { Receipt } from '../target/receipt.ts';
import { LeaseError } from '../ownership/lease-error.ts';

export async function receiptAt(file: string, target: string): Promise<Receipt> {
  const receipt = await readReceipt(file);
  if (receipt === undefined)
    throw new LeaseError(
      'no-receipt',
      `Cannot plan a takeover of target "${target}": no receipt at "${file}" (run make reconcile first)`,
    );
  return receipt;
}
