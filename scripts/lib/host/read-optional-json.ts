import type { z } from 'zod';
import { readFileBounded } from '../signing/read-bounded.ts';

/** A JSON state file that only informs (never decides): missing, unreadable or malformed all read as undefined. */
export async function readOptionalJson<T extends z.ZodType>(path: string, schema: T): Promise<z.output<T> | undefined> {
  const bytes = await readFileBounded(path).catch(() => undefined);
  if (bytes === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
