import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/lib/errors/toolkit-error.ts';
import { parseDuration } from '../../../scripts/lib/promotion/parse-duration.ts';

describe('parseDuration()', () => {
  it('reads seconds, minutes, hours and days', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('36h')).toBe(36 * 3_600_000);
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('99999d')).toBe(99_999 * 86_400_000);
  });

  it.each(['', '7', 'd', '0d', '07d', '100000d', '7w', '7D', ' 7d', '7d ', '1.5h', '-1d', '7dd', 'x7d'])(
    'refuses %j as a usage error naming it',
    (text) => {
      expect(() => parseDuration(text)).toThrow(UsageError);
      expect(() => parseDuration(text)).toThrow(
        `Cannot read duration "${text}": expected a number and s, m, h or d (e.g. 7d)`,
      );
    },
  );
});
