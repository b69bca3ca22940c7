import { z } from 'zod';

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `30m`, `12h` as milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]*)(s|m|h)$/.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? ''] ?? 0);
}

export const durationSchema = z
  .string()
  .refine((v) => parseDuration(v) !== undefined, 'must be a duration such as "90s", "30m" or "12h"')
  .transform((v) => parseDuration(v) ?? 0);
