// Argo CD parses schedules with robfig/cron: exactly 5 fields, no descriptors (@daily), no seconds, no L/W/#/H.
import { CronExpressionParser } from 'cron-parser';

const NUM_OR_NAME: readonly RegExp[] = [
  /^\d+$/, // minute
  /^\d+$/, // hour
  /^\d+$/, // day of month
  /^(\d+|[A-Za-z]{3})$/, // month, names JAN-DEC
  /^(\d+|[A-Za-z]{3})$/, // day of week 0-6, names SUN-SAT
];
const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'];

/** Why robfig/cron would reject the schedule, or undefined when it parses. */
export function scheduleProblem(schedule: string): string | undefined {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5 || schedule.trim() === '') return `expected exactly 5 fields (minute hour day-of-month month day-of-week), got ${schedule.trim() === '' ? 0 : fields.length}`;
  for (const [i, field] of fields.entries()) {
    for (const token of field.split(',')) {
      const [range, step, ...more] = token.split('/');
      const bounds = (range ?? '').split('-');
      const okRange = range === '*' || range === '?' || (bounds.length <= 2 && bounds.every((b) => (NUM_OR_NAME[i] as RegExp).test(b)));
      const okStep = step === undefined || /^\d+$/.test(step);
      if (!okRange || !okStep || more.length > 0) return `${FIELD_NAMES[i]} field: unsupported value ${JSON.stringify(token)}`;
      // robfig/cron's day of week is 0-6; 7 for Sunday is a cron-parser extension.
      if (i === 4 && bounds.some((b) => b === '7')) return `day of week field: value 7 is out of range 0-6`;
    }
  }
  try {
    CronExpressionParser.parse(schedule, { tz: 'UTC' });
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** The first schedule start strictly after `after`, evaluated in UTC (as Argo CD does after shifting the clock). */
export function nextStart(schedule: string, after: Date): Date {
  return CronExpressionParser.parse(schedule, { currentDate: after, tz: 'UTC' }).next().toDate();
}
