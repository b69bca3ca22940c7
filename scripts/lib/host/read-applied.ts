import { join } from 'node:path';
import type { ZodError } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { readFileBounded } from '../signing/read-bounded.ts';
import { HostError } from './host-error.ts';
import { appliedLegacySchema, appliedV2Schema } from './applied-record.ts';
import type { AppliedRecord } from './applied-record.ts';

export const APPLIED_FILE = 'applied.json';

/** Reads `<root>/applied.json`: undefined only when it is missing (first install); a corrupt one stops the tick. */
export async function readApplied(root: string): Promise<AppliedRecord | undefined> {
  const file = join(root, APPLIED_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFileBounded(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseApplied(bytes, file);
}

export function parseApplied(bytes: Uint8Array, file: string): AppliedRecord {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (cause) {
    throw new HostError('applied-corrupt', `Cannot read "${file}": not JSON (${(cause as Error).message})`, {
      cause,
      details: { file },
    });
  }
  const fail = (error: ZodError): HostError =>
    new HostError(
      'applied-corrupt',
      `Cannot read applied record:\n${describeZodIssues(file, json, error).join('\n')}`,
      { details: { file } },
    );
  if (json !== null && typeof json === 'object' && 'schema' in json) {
    const parsed = appliedV2Schema.safeParse(json);
    if (!parsed.success) throw fail(parsed.error);
    return { format: 2, record: parsed.data };
  }
  const parsed = appliedLegacySchema.safeParse(json);
  if (!parsed.success) throw fail(parsed.error);
  return { format: 'legacy', record: parsed.data };
}
