import { UsageError } from '../errors/toolkit-error.ts';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `36h`, `90m`, `30s` to milliseconds. */
export function parseDuration(text: string): number {
  const match = /^([1-9]\d{0,4})([smhd])$/.exec(text);
  if (match === null)
    throw new UsageError(`Cannot read duration "${text}": expected a number and s, m, h or d (e.g. 7d)`);
  // Stryker disable next-line StringLiteral: the pattern always captures a unit, so the fallback is never read
  return Number(match[1]) * (UNITS[match[2] ?? 'd'] ?? 0);
}
