import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LEASE_TTL_MS, RENEW_EVERY_MS, runRenewals } from '../../../scripts/lib/takeover/renewal-loop.ts';
import type { RenewOutcome } from '../../../scripts/lib/takeover/renewer.ts';

const MINUTE = 60_000;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function loop(outcomes: (RenewOutcome | Error)[]) {
  const calls: number[] = [];
  const lines: string[] = [];
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const start = Date.now();
  const ended = runRenewals({
    renew: async () => {
      calls.push(Date.now() - start);
      const next = outcomes.shift() ?? { kind: 'renewed', expires: 'later' };
      if (next instanceof Error) throw next;
      return next;
    },
    log: (line) => lines.push(line),
    stopped,
  });
  return { calls, lines, ended, stop };
}

describe('runRenewals(): the lease renewal rhythm of `takeover start`', () => {
  it('defaults to the contract: a 12 h lease renewed every 5 minutes', () => {
    expect(LEASE_TTL_MS).toBe(12 * 60 * MINUTE);
    expect(RENEW_EVERY_MS).toBe(5 * MINUTE);
  });

  it('renews first 5 minutes after the lease was written, then every 5 minutes, never earlier', async () => {
    const { calls, stop, ended } = loop([]);
    await vi.advanceTimersByTimeAsync(5 * MINUTE - 1);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(calls).toEqual([5 * MINUTE, 10 * MINUTE, 15 * MINUTE]);
    stop();
    expect(await ended).toEqual({ kind: 'signal' });
  });

  it('retries a failed renewal after 30 s, then goes back to every 5 minutes', async () => {
    const { calls, lines, stop, ended } = loop([new Error('connection refused')]);
    await vi.advanceTimersByTimeAsync(5 * MINUTE + 30_000 + 5 * MINUTE);
    expect(calls).toEqual([5 * MINUTE, 5 * MINUTE + 30_000, 10 * MINUTE + 30_000]);
    expect(lines[0]).toBe('renewal failed, retrying: connection refused');
    stop();
    await ended;
  });

  it('ends when the lease is lost, and renews no more', async () => {
    const { calls, ended } = loop([{ kind: 'lost', reason: 'expired' }]);
    await vi.advanceTimersByTimeAsync(20 * MINUTE);
    expect(await ended).toEqual({ kind: 'lost', reason: 'expired' });
    expect(calls).toEqual([5 * MINUTE]);
  });
});
