// A Secret's data as the API returns it: base64 values, validated before anything trusts them.
import { z } from 'zod';
import type { KubeObject } from '../ports/kube-kinds.ts';
import { emptyRecord, ownRecord } from '../errors/own-record.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { PharosError } from './pharos-error.ts';

const secretSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string(), resourceVersion: z.string().optional() }),
  data: ownRecord(z.string(), z.base64()).nullish(),
});

export interface ReadSecret {
  readonly values: Record<string, string>;
  readonly resourceVersion: string | undefined;
}

export function decodeSecret(object: KubeObject, where: string): ReadSecret {
  const parsed = secretSchema.safeParse(object);
  if (!parsed.success) {
    // Values are never echoed: only the field paths.
    const lines = describeZodIssues(where, undefined, parsed.error);
    throw new PharosError('secrets', `Cannot read Secret "${where}":\n${lines.join('\n')}`, {
      details: { secret: where },
    });
  }
  const values = emptyRecord<string>();
  for (const [key, value] of Object.entries(parsed.data.data ?? {}))
    values[key] = Buffer.from(value, 'base64').toString('utf8');
  return { values, resourceVersion: parsed.data.metadata.resourceVersion };
}

export function encodeData(values: Readonly<Record<string, string>>): Record<string, string> {
  const out = emptyRecord<string>();
  for (const [k, v] of Object.entries(values)) out[k] = Buffer.from(v, 'utf8').toString('base64');
  return out;
}
