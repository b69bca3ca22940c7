// How Helm's Go code formats what it prints, for the Helm simulator: encoding/json's Encoder (golang/go src/encoding/json:
// map keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, one trailing newline; struct fields in declaration order,
// which the callers keep), time.Time as Go prints it, and gosuri/uitable's tab-separated columns (helm/helm@e9b85e4
// pkg/cli/output/output.go EncodeJSON, EncodeTable).

/** `json.NewEncoder(out).Encode(v)`: objects built in struct order stay in that order; plain maps are sorted. */
export function goJson(value: unknown, sortKeys = false): string {
  return `${encode(value, sortKeys)}\n`;
}

function encode(value: unknown, sortKeys: boolean): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => encode(v, sortKeys)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${escape(k)}:${encode(v, sortKeys)}`).join(',')}}`;
  }
  if (typeof value === 'string') return escape(value);
  return JSON.stringify(value);
}

const HTML_SAFE: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const escape = (s: string) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => HTML_SAFE[c] ?? c);

/** A map value (release config, labels): Go encodes map[string]any with its keys sorted, at every depth. */
export const sortedMap = (value: unknown): unknown => JSON.parse(encode(value, true)) as unknown;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;

/** time.ANSIC ("Mon Jan _2 15:04:05 2006") of a time the simulator stored in UTC. */
export function ansic(iso: string): string {
  const d = new Date(iso);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${clock(d)} ${String(d.getUTCFullYear()).padStart(4, '0')}`;
}

/** time.Time.String() of a UTC time without a monotonic reading: "2006-01-02 15:04:05.999999999 +0000 UTC". */
export function goTimeString(iso: string): string {
  const d = new Date(iso);
  const fraction =
    d.getUTCMilliseconds() === 0 ? '' : `.${String(d.getUTCMilliseconds()).padStart(3, '0')}`.replace(/0+$/, '');
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${clock(d)}${fraction} +0000 UTC`;
}

/** gosuri/uitable as output.EncodeTable writes it: every cell padded to its column's width, cells joined by a tab. */
export function uitable(rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map(String));
  const widths: number[] = [];
  for (const row of cells) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return `${cells.map((row) => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('\t')).join('\n')}\n`;
}
