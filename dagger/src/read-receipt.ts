// The receipt argument of buildChanged: the dev box receipt (schema 1), parsed by the library's schema.
import type { File } from '@dagger.io/dagger';
import { receiptSchema } from '../lib/target/receipt.ts';
import type { Receipt } from '../lib/target/receipt.ts';
import { describeZodIssues } from '../lib/errors/zod-issues.ts';
import { ModuleError } from './module-error.ts';

export async function readReceiptFile(file: File): Promise<Receipt> {
  let json: unknown;
  try {
    json = JSON.parse(await file.contents());
  } catch (cause) {
    throw new ModuleError(
      'bad-argument',
      `Invalid argument "receipt" (${await file.name()}): not JSON (${(cause as Error).message})`,
      { cause, details: { argument: 'receipt' } },
    );
  }
  const parsed = receiptSchema.safeParse(json);
  // The file's name is asked for only when it is needed: each call is a round trip to the engine.
  if (!parsed.success)
    throw new ModuleError(
      'bad-argument',
      `Invalid argument "receipt":\n${describeZodIssues(await file.name(), json, parsed.error).join('\n')}`,
      { details: { argument: 'receipt' } },
    );
  return parsed.data;
}
