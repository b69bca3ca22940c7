import { describeZodIssues } from '../errors/zod-issues.ts';
import { LockError } from './lock-error.ts';
import { chartLockSchema, composeLockSchema } from './lock-schema.ts';
import type { ReleaseLock } from './lock-schema.ts';

/** Parses verified lock bytes; the kind comes from the file name the host asked for, not from the bytes. */
export function parseLock(bytes: Uint8Array, file: string, kind: 'compose' | 'chart'): ReleaseLock {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new LockError('malformed', `Cannot read lock "${file}": not UTF-8 JSON (${(cause as Error).message})`, {
      details: { file },
    });
  }
  const parsed = (kind === 'chart' ? chartLockSchema : composeLockSchema).safeParse(json);
  if (!parsed.success)
    throw new LockError('malformed', `Cannot read lock:\n${describeZodIssues(file, json, parsed.error).join('\n')}`, {
      details: { file },
    });
  return parsed.data;
}

export function serializeLock(lock: ReleaseLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}
