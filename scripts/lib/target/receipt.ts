import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { writeFileAtomic } from '../ports/atomic-write.ts';
import { readRegularFile, RegularFileError } from '../ports/regular-file.ts';
import { TargetError } from './target-error.ts';
import { imageReference } from '../ownership/ownership-records.ts';

export const receiptSchema = z.strictObject({
  schema: z.literal(1),
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-hex commit'),
  delivered: z.iso.datetime({ offset: false }),
  images: z.record(
    z.string().min(1),
    z.strictObject({ fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex'), reference: imageReference }),
  ),
});
export type Receipt = z.infer<typeof receiptSchema>;

const MAX_RECEIPT_BYTES = 16 * 1024 * 1024;

/** The local receipt, or undefined when there is none yet; a damaged file is an error naming the field. */
export async function readReceipt(file: string): Promise<Receipt | undefined> {
  let text: string;
  try {
    // A receipt is a regular file of this checkout: never followed through a symlink, never waited on as a FIFO.
    text = (await readRegularFile(file, MAX_RECEIPT_BYTES)).bytes.toString('utf8');
  } catch (cause) {
    if (cause instanceof RegularFileError && cause.code === 'missing') return undefined;
    const why = cause instanceof RegularFileError ? cause.reason : (cause as Error).message;
    throw new TargetError('bad-receipt', `Cannot read receipt "${file}": ${why}`, { cause, details: { file } });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new TargetError('bad-receipt', `Cannot read receipt "${file}": not JSON (${(cause as Error).message})`, {
      cause,
      details: { file },
    });
  }
  const parsed = receiptSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = describeZodIssues(file, raw, parsed.error);
    throw new TargetError('bad-receipt', `Cannot read receipt:\n${lines.join('\n')}`, {
      details: { file, issues: lines },
    });
  }
  return parsed.data;
}

export async function writeReceipt(file: string, receipt: Receipt): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(receiptSchema.parse(receipt), null, 2)}\n`);
}
