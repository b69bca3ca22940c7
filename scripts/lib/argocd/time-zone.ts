// The UTC offset of an IANA zone at an instant; Argo CD falls back to UTC for a zone it cannot load.
const formats = new Map<string, Intl.DateTimeFormat | undefined>();

function formatFor(zone: string): Intl.DateTimeFormat | undefined {
  if (!formats.has(zone)) {
    let format: Intl.DateTimeFormat | undefined;
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      format = undefined;
    }
    formats.set(zone, format);
  }
  return formats.get(zone);
}

/** Whether Go's time.LoadLocation accepts it ("" and "UTC" mean UTC). */
export function isKnownTimeZone(zone: string): boolean {
  return zone === '' || zone === 'UTC' || formatFor(zone) !== undefined;
}

export function zoneOffsetMs(zone: string | undefined, at: Date): number {
  if (zone === undefined || zone === '' || zone === 'UTC') return 0;
  const format = formatFor(zone);
  if (!format) return 0;
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts['year']), Number(parts['month']) - 1, Number(parts['day']), Number(parts['hour']), Number(parts['minute']), Number(parts['second']));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}
