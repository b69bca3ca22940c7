import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { OwnershipError } from './ownership-error.ts';

const commit = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-hex commit');
const time = z.iso.datetime({ offset: false });
export const imageReference = z
  .string()
  .regex(/^[a-z0-9.:-]+(\/[a-z0-9._-]+)+@sha256:[0-9a-f]{64}$/, 'must be "<registry>/<name>@sha256:<64 hex>"');

export const holderSchema = z.strictObject({ checkout: z.string().min(1), workstation: z.string().min(1) });
export type Holder = z.infer<typeof holderSchema>;

export const deliveryRecordSchema = z.strictObject({
  schema: z.literal(1),
  holder: holderSchema,
  commit,
  started: time,
  expires: time,
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

export const leaseRecordSchema = z.strictObject({
  schema: z.literal(1),
  holder: holderSchema,
  applications: z.array(z.string().min(1)),
  commit,
  acquired: time,
  expires: time,
  state: z.enum(['acquiring', 'held', 'handing-back']),
});
export type LeaseRecord = z.infer<typeof leaseRecordSchema>;

/** What a command that removed another holder's expired lease did: that holder's next command reports it. */
export const cleanedRecordSchema = z.strictObject({
  schema: z.literal(1),
  lease: leaseRecordSchema,
  by: z.string().min(1),
  at: time,
  done: z.array(z.string()),
});
export type CleanedRecord = z.infer<typeof cleanedRecordSchema>;

export const imagesSchema = z.record(z.string().min(1), imageReference);
export type ImageMap = z.infer<typeof imagesSchema>;

/** The ownership ConfigMap's keys, each parsed from its JSON text; absent keys are undefined. */
export interface OwnershipRecords {
  readonly revision: string | undefined;
  readonly images: ImageMap | undefined;
  readonly delivery: DeliveryRecord | undefined;
  readonly lease: LeaseRecord | undefined;
  /** Optional: records written before it have none. */
  readonly cleaned?: CleanedRecord | undefined;
}

const SCHEMAS = {
  revision: commit,
  images: imagesSchema,
  delivery: deliveryRecordSchema,
  lease: leaseRecordSchema,
  cleaned: cleanedRecordSchema,
} as const;
export type OwnershipKey = keyof typeof SCHEMAS;

/** Parses every known key of `data`; a bad one names the ConfigMap, key, field and value. */
export function parseOwnershipData(
  data: Readonly<Record<string, string>> | undefined,
  where: string,
): OwnershipRecords {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SCHEMAS) as OwnershipKey[]) {
    const text = data?.[key];
    if (text === undefined || text === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      throw new OwnershipError(
        'bad-record',
        `Cannot read ${where} key "${key}": not JSON (${(cause as Error).message})`,
        {
          cause,
          details: { key },
        },
      );
    }
    const parsed = SCHEMAS[key].safeParse(raw);
    if (!parsed.success) {
      const lines = describeZodIssues(`${where} data.${key}`, raw, parsed.error);
      throw new OwnershipError('bad-record', `Cannot read ${where}:\n${lines.join('\n')}`, {
        details: { key, issues: lines },
      });
    }
    out[key] = parsed.data;
  }
  return out as unknown as OwnershipRecords;
}

/** `data` changes for one compare-and-swap: a value writes the key as JSON text, null removes it. */
export type OwnershipChanges = Partial<{ [K in OwnershipKey]: OwnershipRecords[K] | null }>;

export function applyOwnershipChanges(
  data: Readonly<Record<string, string>>,
  changes: OwnershipChanges,
): Record<string, string> {
  const next: Record<string, string> = { ...data };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined) delete next[key];
    else next[key] = JSON.stringify(value);
  }
  return next;
}

export function isExpired(record: { readonly expires: string }, now: Date): boolean {
  return Date.parse(record.expires) <= now.getTime();
}
