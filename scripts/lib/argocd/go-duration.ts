// Go's time.ParseDuration: a signed sequence of decimal numbers with units ns, us, µs, ms, s, m, h ("1h30m", "90m").
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** Milliseconds, or undefined when Go would reject the text (`1d`, `10`, `""`). */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const m = PART.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** `"12h"`, `"90m"`: the text a Go duration field expects, whole minutes. */
export function formatMinutes(minutes: number): string {
  return `${Math.trunc(minutes)}m`;
}
