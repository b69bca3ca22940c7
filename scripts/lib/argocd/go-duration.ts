// Go's time.ParseDuration: a signed sequence of decimal numbers with units ns, us, µs, ms, s, m, h ("1h30m", "90m").
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX = 1n << 63n;

const PART = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Milliseconds, or undefined when Go would reject the text (`1d`, `10`, `""`, or more than an int64 of
 * nanoseconds: about 2562047h).
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const m = PART.exec(rest);
    const whole = m?.[1] ?? '';
    const fraction = m?.[2] ?? '';
    if (!m || (whole === '' && fraction === '')) return undefined;
    const unit = UNIT_NS[m[3] as string] as bigint;
    let v = BigInt(whole === '' ? '0' : whole);
    if (v > MAX / unit) return undefined;
    v *= unit;
    if (fraction !== '') v += BigInt(Math.trunc(Number(`0.${fraction}`) * Number(unit)));
    if (v > MAX) return undefined;
    total += v;
    if (total > MAX) return undefined;
    rest = rest.slice(m[0].length);
  }
  if (!negative && total > MAX - 1n) return undefined;
  return (negative ? -1 : 1) * (Number(total) / 1e6);
}

/** `"12h"`, `"90m"`: the text a Go duration field expects, whole minutes. */
export function formatMinutes(minutes: number): string {
  return `${Math.trunc(minutes)}m`;
}
