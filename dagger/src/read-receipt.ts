// The receipt argument of buildChanged: the dev box receipt (schema 1), parsed by the library's schema.
import type { File } from '@dagger.io/dagger';
import { receiptSchema } from '../../scripts/lib/devbox/receipt.ts';
import type { Receipt } from '../../scripts/lib/devbox/receipt.ts';
import { describeZodIssues } from '../../scripts/lib/errors/zod-issues.ts';
import { ModuleError } from './module-error.ts';

export async function readReceiptFile(file: File): Promise<Receipt> {
  const name = await file.name();
  let json: unknown;
  try {
    json = JSON.parse(await file.contents());
  } catch (cause) {
    throw new ModuleError('bad-argument', `Invalid argument "receipt" (${name}): not JSON (${(cause as Error).message})`, { cause, details: { argument: 'receipt' } });
  }
  const parsed = receiptSchema.safeParse(json);
  if (!parsed.success) throw new ModuleError('bad-argument', `Invalid argument "receipt":\n${describeZodIssues(name, json, parsed.error).join('\n')}`, { details: { argument: 'receipt' } });
  return parsed.data;
}
