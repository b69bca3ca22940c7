// The renewal rhythm of a held lease: every 5 minutes by default (the contract's "renewal every 5 min"), a failed
// renewal retried within 30 s, until the session is stopped or the lease is lost.
import type { RenewOutcome } from './renewer.ts';

/** Defaults of the contract (devbox receipt and lease, v1): time to live 12 h, renewal every 5 min. */
export const LEASE_TTL_MS = 12 * 3_600_000;
export const RENEW_EVERY_MS = 5 * 60_000;
const RETRY_MS = 30_000;

export interface RenewalLoopOptions {
  readonly renew: () => Promise<RenewOutcome>;
  readonly everyMs?: number;
  readonly log: (line: string) => void;
  /** Resolves when the session should end (a signal). */
  readonly stopped: Promise<void>;
}

export type RenewalEnd = { readonly kind: 'signal' } | { readonly kind: 'lost'; readonly reason: string };

/** Renews `everyMs` after the lease was written and after each renewal; ends on `stopped` or a lost lease. */
export function runRenewals(options: RenewalLoopOptions): Promise<RenewalEnd> {
  const everyMs = options.everyMs ?? RENEW_EVERY_MS;
  return new Promise((done) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ended = false;
    const end = (outcome: RenewalEnd) => {
      ended = true;
      clearTimeout(timer);
      done(outcome);
    };
    const tick = async () => {
      try {
        const renewed = await options.renew();
        if (ended) return;
        if (renewed.kind === 'lost') return end(renewed);
        options.log(`step=renew expires=${renewed.expires}`);
        timer = setTimeout(tick, everyMs);
      } catch (error) {
        if (ended) return;
        options.log(`renewal failed, retrying: ${(error as Error).message}`);
        timer = setTimeout(tick, Math.min(everyMs, RETRY_MS));
      }
    };
    void options.stopped.then(() => end({ kind: 'signal' }));
    timer = setTimeout(tick, everyMs);
  });
}
