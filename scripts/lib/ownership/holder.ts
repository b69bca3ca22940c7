// Who holds a target: a checkout on a workstation. Every record and journal entry names its holder through these.
import type { Holder, LeaseRecord } from './ownership-records.ts';

export function sameHolder(a: Holder, b: Holder): boolean {
  return a.checkout === b.checkout && a.workstation === b.workstation;
}

export function describeHolder(record: { readonly holder: Holder }): string {
  return `${record.holder.workstation}:${record.holder.checkout}`;
}

/** Journal entries and replaced workloads name their lease by acquire time and holder. */
export function leaseId(record: Pick<LeaseRecord, 'acquired' | 'holder'>): string {
  return `${record.acquired}|${describeHolder(record)}`;
}
