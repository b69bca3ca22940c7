import { join } from 'node:path';
import { z } from 'zod';
import { readOptionalJson } from './read-optional-json.ts';

export const LAST_TICK_FILE = 'last-tick.json';

/** `<root>/last-tick.json`: how the last tick ended, for `status` (never read by a tick). */
export const lastTickSchema = z.strictObject({
  schema: z.literal(1),
  finishedAt: z.iso.datetime({ offset: true }),
  exit: z.number().int(),
  result: z.string(),
  decision: z.string().nullable(),
  reason: z.string().nullable(),
  target: z.string().nullable(),
  message: z.string().max(4096),
});

export type LastTick = z.output<typeof lastTickSchema>;

/** Missing or unreadable means "no tick recorded yet": status reports that, it never fails on it. */
export async function readLastTick(root: string): Promise<LastTick | undefined> {
  return readOptionalJson(join(root, LAST_TICK_FILE), lastTickSchema);
}
