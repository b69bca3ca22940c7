// What `takeover start` and `takeover watch` take as text (`--ttl`, `--renew-every`, `--debounce`, `--replacement`),
// checked before anything touches the cluster; a bad value is a usage error naming the option and the value.
import { parseDuration } from '../target/duration.ts';
import { UsageError } from '../errors/toolkit-error.ts';
import { LEASE_TTL_MS, RENEW_EVERY_MS } from './renewal-loop.ts';

export const REPLACEMENT_KINDS = ['auto', 'telepresence', 'scale-to-zero'] as const;
export type ReplacementKind = (typeof REPLACEMENT_KINDS)[number];

/** A duration of at least a second (`90s`, `5m`, `12h`), or the fallback when the option is not given. */
export function durationOption(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000)
    throw new UsageError(`Cannot use ${name} ${JSON.stringify(text)}: give a duration such as "90s", "5m" or "12h"`);
  return ms;
}

/** The lease's time to live and how often it is renewed: a renewal must come before the lease runs out. */
export function leaseTimings(
  ttl: string | undefined,
  renewEvery: string | undefined,
): { ttlMs: number; renewMs: number } {
  const ttlMs = durationOption(ttl, LEASE_TTL_MS, '--ttl');
  const renewMs = durationOption(renewEvery, RENEW_EVERY_MS, '--renew-every');
  if (renewMs >= ttlMs)
    throw new UsageError('Cannot renew less often than the lease lives: --renew-every must be shorter than --ttl');
  return { ttlMs, renewMs };
}

/** `--debounce`: milliseconds (`200ms`) or a duration (`1s`); 200 ms when not given. */
export function debounceOption(text: string | undefined): number {
  if (text === undefined) return 200;
  const millis = /^(\d{1,6})ms$/.exec(text);
  const ms = millis !== null ? Number(millis[1]) : (parseDuration(text) ?? Number.NaN);
  if (!Number.isFinite(ms))
    throw new UsageError(`Cannot use --debounce ${JSON.stringify(text)}: give a duration such as "200ms" or "1s"`);
  return ms;
}

export function replacementOption(text: string): ReplacementKind {
  const kind = REPLACEMENT_KINDS.find((k) => k === text);
  if (kind === undefined)
    throw new UsageError(`Cannot use --replacement ${JSON.stringify(text)}: give auto, telepresence or scale-to-zero`);
  return kind;
}
