// A window's time zone as Go's time.LoadLocation reads it (Argo CD falls back to UTC for a zone it cannot load):
// IANA names, case-sensitive (they are file names under zoneinfo); "" and "UTC" are UTC; "Local" is the
// controller's zone (UTC in Argo CD's image); offsets such as "+01:00" are not zones.
const formats = new Map<string, Intl.DateTimeFormat | undefined>();
let canonical: ReadonlyMap<string, string> | undefined;

// Lower-cased IANA name -> its spelling, to refuse "europe/berlin" as Go does (Intl would accept it).
function canonicalNames(): ReadonlyMap<string, string> {
  canonical ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  return canonical;
}

function formatFor(zone: string): Intl.DateTimeFormat | undefined {
  if (!formats.has(zone)) {
    let format: Intl.DateTimeFormat | undefined;
    const spelled = canonicalNames().get(zone.toLowerCase());
    if (!/^[+-]/.test(zone) && /[A-Za-z]/.test(zone) && (spelled === undefined || spelled === zone)) {
      try {
        format = new Intl.DateTimeFormat('en-US', {
          timeZone: zone,
          hourCycle: 'h23',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
          hour: 'numeric',
          minute: 'numeric',
          second: 'numeric',
        });
      } catch {
        format = undefined;
      }
    }
    formats.set(zone, format);
  }
  return formats.get(zone);
}

const isUtc = (zone: string) => zone === '' || zone === 'UTC' || zone === 'Local';

/** Whether Go's time.LoadLocation accepts it. */
export function isKnownTimeZone(zone: string): boolean {
  return isUtc(zone) || formatFor(zone) !== undefined;
}

export function zoneOffsetMs(zone: string | undefined, at: Date): number {
  if (zone === undefined || isUtc(zone)) return 0;
  const format = formatFor(zone);
  if (!format) return 0;
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  const wall = Date.UTC(
    Number(parts['year']),
    Number(parts['month']) - 1,
    Number(parts['day']),
    Number(parts['hour']),
    Number(parts['minute']),
    Number(parts['second']),
  );
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}
