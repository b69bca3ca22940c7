import { describe, expect, it } from 'vitest';
import {
  debounceOption,
  durationOption,
  leaseTimings,
  replacementOption,
} from '../../../scripts/lib/takeover/takeover-options.ts';

describe('takeover options', () => {
  it('--debounce takes milliseconds or a duration, 200 ms when not given', () => {
    expect(debounceOption(undefined)).toBe(200);
    expect(debounceOption('50ms')).toBe(50);
    expect(debounceOption('1s')).toBe(1000);
    expect(() => debounceOption('soon')).toThrow(
      'Cannot use --debounce "soon": give a duration such as "200ms" or "1s"',
    );
  });

  it('--ttl and --renew-every default to 12 h and 5 min; a renewal must come before the lease runs out', () => {
    expect(leaseTimings(undefined, undefined)).toEqual({ ttlMs: 12 * 3_600_000, renewMs: 5 * 60_000 });
    expect(leaseTimings('90s', '30s')).toEqual({ ttlMs: 90_000, renewMs: 30_000 });
    expect(() => leaseTimings('1m', '1m')).toThrow('--renew-every must be shorter than --ttl');
    expect(() => durationOption('1ms', 0, '--ttl')).toThrow('Cannot use --ttl "1ms"');
  });

  it('--replacement is auto, telepresence or scale-to-zero', () => {
    expect(replacementOption('telepresence')).toBe('telepresence');
    expect(() => replacementOption('toString')).toThrow('give auto, telepresence or scale-to-zero');
  });
});
