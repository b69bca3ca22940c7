// robfig/cron v3 as Argo CD configures it (Minute|Hour|Dom|Month|Dow, no descriptors): its parser and SpecSchedule.Next,
// including its quirks: `*/1` and `*,5` keep the "star" bit (day of month and day of week are then AND-ed, else
// OR-ed), `+5` is a number (strconv.Atoi), `?` is `*`, an optional `CRON_TZ=`/`TZ=` prefix, and a schedule that never
// fires within five years (`0 0 30 2 *`) has no next time.

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAYS: Readonly<Record<string, number>> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

export interface CronSchedule {
  readonly minute: ReadonlySet<number>;
  readonly hour: ReadonlySet<number>;
  readonly dom: ReadonlySet<number>;
  readonly month: ReadonlySet<number>;
  readonly dow: ReadonlySet<number>;
  /** robfig's starBit: the field was `*` or `?` (with no step above 1). */
  readonly domStar: boolean;
  readonly dowStar: boolean;
  /** From `CRON_TZ=<zone>`: the zone the schedule's wall clock runs in; undefined = the caller's (UTC in Argo CD). */
  readonly zone: string | undefined;
}

export class CronParseError extends Error {}

// strconv.Atoi: optional sign, decimal digits.
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new CronParseError(`failed to parse int from ${text}`);
  return Number(text);
}

function value(text: string, b: Bounds): number {
  const named = b.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  const n = atoi(text);
  if (n < 0) throw new CronParseError(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function parseRange(expr: string, b: Bounds): { values: number[]; star: boolean } {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] as string).split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    start = value(lowAndHigh[0] as string, b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = value(lowAndHigh[1] as string, b);
    else throw new CronParseError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = atoi(rangeAndStep[1] as string);
    if (single) end = b.max; // "N/step" means "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new CronParseError(`too many slashes: ${expr}`);
  if (start < b.min) throw new CronParseError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronParseError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronParseError(`step of range should be a positive number: ${expr}`);
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return { values, star };
}

function parseField(field: string, b: Bounds): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',')) {
    const r = parseRange(expr, b);
    for (const v of r.values) values.add(v);
    star ||= r.star;
  }
  return { values, star };
}

/** Parses like `cron.NewParser(Minute|Hour|Dom|Month|Dow).Parse`; throws CronParseError with robfig's message. */
export function parseCron(spec: string, isZone: (zone: string) => boolean = () => true): CronSchedule {
  if (spec.length === 0) throw new CronParseError('empty spec string');
  let rest = spec;
  let zone: string | undefined;
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    const space = rest.indexOf(' ');
    if (space < 0) throw new CronParseError(`provided bad location ${rest}`);
    zone = rest.slice(rest.indexOf('=') + 1, space);
    if (!isZone(zone)) throw new CronParseError(`provided bad location ${zone}: unknown time zone ${zone}`);
    rest = rest.slice(space).trim();
  }
  if (rest.startsWith('@')) throw new CronParseError(`parser does not accept descriptors: ${rest}`);
  const fields = rest.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new CronParseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i] as Bounds)) as [
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
  ];
  return {
    minute: minute.values,
    hour: hour.values,
    dom: dom.values,
    month: month.values,
    dow: dow.values,
    domStar: dom.star,
    dowStar: dow.star,
    zone: zone === '' ? 'UTC' : zone,
  };
}

function dayMatches(s: CronSchedule, t: Date): boolean {
  const domMatch = s.dom.has(t.getUTCDate());
  const dowMatch = s.dow.has(t.getUTCDay());
  return s.domStar || s.dowStar ? domMatch && dowMatch : domMatch || dowMatch;
}

/**
 * SpecSchedule.Next on a wall clock given as UTC fields: the first whole minute strictly after `after`, or undefined
 * where robfig returns the zero time (nothing within five years).
 */
export function cronNext(s: CronSchedule, after: Date): Date | undefined {
  const t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
  const yearLimit = t.getUTCFullYear() + 5;
  let added = false;
  const reset = (fn: () => void) => {
    if (!added) {
      added = true;
      fn();
    }
  };
  for (;;) {
    if (t.getUTCFullYear() > yearLimit) return undefined;
    let wrapped = false;
    while (!s.month.has(t.getUTCMonth() + 1)) {
      reset(() => {
        t.setUTCDate(1);
        t.setUTCHours(0, 0, 0, 0);
      });
      t.setUTCMonth(t.getUTCMonth() + 1);
      if (t.getUTCMonth() === 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;
    while (!dayMatches(s, t)) {
      reset(() => t.setUTCHours(0, 0, 0, 0));
      t.setUTCDate(t.getUTCDate() + 1);
      if (t.getUTCDate() === 1) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;
    while (!s.hour.has(t.getUTCHours())) {
      reset(() => t.setUTCMinutes(0, 0, 0));
      t.setUTCHours(t.getUTCHours() + 1);
      if (t.getUTCHours() === 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;
    while (!s.minute.has(t.getUTCMinutes())) {
      reset(() => t.setUTCSeconds(0, 0));
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      if (t.getUTCMinutes() === 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;
    // The seconds field is 0: from second s > 0 robfig moves to the next minute and checks everything again.
    if (t.getUTCSeconds() !== 0) {
      reset(() => t.setUTCMilliseconds(0));
      t.setUTCSeconds(0);
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      continue;
    }
    return t;
  }
}
