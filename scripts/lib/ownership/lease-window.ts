// The deny window a lease appends to each AppProject owning a leased Application (spec: devbox-receipt-and-lease).
import type { LeaseRecord } from './ownership-records.ts';
import type { SyncWindow } from '../argocd/sync-window-schema.ts';

/** Exactly the spec's fields; assignable to the Argo CD sync window schema's type. */
export type LeaseWindow = SyncWindow & {
  readonly kind: 'deny';
  readonly applications: string[];
  readonly manualSync: false;
  readonly timeZone: 'UTC';
};

const MINUTE = 60_000;

/** The UTC minute the lease was acquired, as a yearly cron start: `<minute> <hour> <day> <month> *`. */
export function windowSchedule(acquired: Date): string {
  return `${acquired.getUTCMinutes()} ${acquired.getUTCHours()} ${acquired.getUTCDate()} ${acquired.getUTCMonth() + 1} *`;
}

/** Whole minutes from the acquire minute to `expires`, rounded up so the window never ends before the record. */
export function windowMinutes(acquired: Date, expires: Date): number {
  const start = Math.floor(acquired.getTime() / MINUTE) * MINUTE;
  return Math.max(1, Math.ceil((expires.getTime() - start) / MINUTE));
}

export function leaseWindow(record: Pick<LeaseRecord, 'applications' | 'acquired' | 'expires'>): LeaseWindow {
  const acquired = new Date(record.acquired);
  return {
    kind: 'deny',
    schedule: windowSchedule(acquired),
    duration: `${windowMinutes(acquired, new Date(record.expires))}m`,
    applications: [...record.applications].sort(),
    manualSync: false,
    timeZone: 'UTC',
  };
}

/** "Our" window exactly as the spec says: the deny window with `manualSync: false` whose applications equal the record's. */
export function isOurWindow(window: unknown, record: Pick<LeaseRecord, 'applications'>): boolean {
  if (typeof window !== 'object' || window === null) return false;
  const w = window as Record<string, unknown>;
  const apps = Array.isArray(w['applications']) ? [...(w['applications'] as string[])].sort() : [];
  const want = [...record.applications].sort();
  return (
    w['kind'] === 'deny' &&
    w['manualSync'] === false &&
    apps.length === want.length &&
    apps.every((a, i) => a === want[i])
  );
}

const SCHEDULE = /^[0-9]{1,2} [0-9]{1,2} [0-9]{1,2} [0-9]{1,2} \*$/;

/**
 * A window a lease would write, with no record to name its applications: exactly the six fields of a lease
 * window, a one-minute yearly schedule and a whole-minute duration. Only such windows are ever removed as orphans.
 */
export function isLeaseShaped(window: unknown): boolean {
  if (typeof window !== 'object' || window === null) return false;
  const w = window as Record<string, unknown>;
  const keys = Object.keys(w).sort().join(',');
  return (
    keys === 'applications,duration,kind,manualSync,schedule,timeZone' &&
    w['kind'] === 'deny' &&
    w['manualSync'] === false &&
    w['timeZone'] === 'UTC' &&
    typeof w['schedule'] === 'string' &&
    SCHEDULE.test(w['schedule']) &&
    typeof w['duration'] === 'string' &&
    /^[1-9][0-9]*m$/.test(w['duration']) &&
    Array.isArray(w['applications']) &&
    w['applications'].length > 0
  );
}
