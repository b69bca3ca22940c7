import { join } from 'node:path';
import { z } from 'zod';
import { readOptionalJson } from './read-optional-json.ts';

export const FAILED_ATTEMPT_FILE = 'failed-attempt.json';

/** `<root>/failed-attempt.json`: the request whose last apply failed, so the next tick reports `retry`. */
export const failedAttemptSchema = z.strictObject({
  schema: z.literal(1),
  channelIdentity: z.string().regex(/^[0-9a-f]{64}$/),
  failedAt: z.iso.datetime({ offset: true }),
  error: z.string().max(4096).optional(),
});

export type FailedAttempt = z.output<typeof failedAttemptSchema>;

/** Missing or unreadable means no pending retry: the file only changes the reason, never the decision to apply. */
export async function readFailedAttempt(root: string): Promise<FailedAttempt | undefined> {
  return readOptionalJson(join(root, FAILED_ATTEMPT_FILE), failedAttemptSchema);
}
