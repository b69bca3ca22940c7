import { readJournal } from '../steps/jsonl-journal.ts';
import type { JournalEntry } from '../steps/jsonl-journal.ts';
import type { OwnershipRecords } from '../ownership/ownership-records.ts';
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { isExpired } from '../ownership/lease-record.ts';
import { isOurWindow } from '../ownership/lease-window.ts';
import type { CleanupOutcome } from '../ownership/cleanup-target.ts';
import { leaseId } from '../ownership/holder.ts';
import type { LiveStatus } from './live-status.ts';
import { formatLive } from './live-status.ts';

export interface TakeoverStatus {
  readonly target: string;
  readonly revision: string | undefined;
  readonly lease: (LeaseRecord & { readonly expired: boolean }) | undefined;
  readonly windows: readonly unknown[];
  readonly cleanup: readonly string[];
  /** This checkout's journal entries for the lease (the last 20). */
  readonly journal: readonly JournalEntry[];
  readonly runtimes: LiveStatus['runtimes'];
  readonly replacements: LiveStatus['replacements'];
  readonly agents: LiveStatus['agents'];
  readonly queuedAgentRemovals: LiveStatus['queuedAgentRemovals'];
}

const NONE: LiveStatus = { runtimes: [], replacements: [], agents: {}, queuedAgentRemovals: [] };

export async function takeoverStatus(
  target: string,
  cleaned: CleanupOutcome,
  journalFile: string,
  now: Date,
  live: LiveStatus = NONE,
): Promise<TakeoverStatus> {
  const records: OwnershipRecords = cleaned.snapshot.records;
  const lease = records.lease;
  const windows = lease === undefined ? [] : (cleaned.project.windows ?? []).filter((w) => isOurWindow(w, lease));
  const entries =
    lease === undefined
      ? []
      : (await readJournal(journalFile))
          .filter((e) => e.command === 'takeover' && e['lease'] === leaseId(lease))
          .slice(-20);
  return {
    target,
    revision: records.revision,
    lease: lease === undefined ? undefined : { ...lease, expired: isExpired(lease, now) },
    windows,
    cleanup: cleaned.done,
    journal: entries,
    ...live,
  };
}

export function formatStatus(status: TakeoverStatus): string {
  const lines = [`target: ${status.target}`, `delivered: ${status.revision ?? '(nothing yet)'}`];
  for (const line of status.cleanup) lines.push(`cleaned up: ${line}`);
  const lease = status.lease;
  if (lease === undefined) {
    lines.push('lease: none (Argo CD manages every Application)');
    return `${lines.join('\n')}\n`;
  }
  lines.push(`lease: ${lease.state}${lease.expired ? ' (EXPIRED)' : ''}`);
  lines.push(`  holder: ${lease.holder.workstation}:${lease.holder.checkout}`);
  lines.push(`  since: ${lease.acquired}`, `  until: ${lease.expires}`);
  lines.push(`  applications: ${lease.applications.join(', ')}`);
  lines.push(`  commit: ${lease.commit}`);
  for (const w of status.windows as { schedule: string; duration: string }[])
    lines.push(`  window: deny "${w.schedule}" for ${w.duration}, manualSync false, UTC`);
  if (status.windows.length === 0) lines.push('  window: none');
  lines.push(...formatLive(status));
  if (status.journal.length > 0) lines.push('journal:');
  for (const e of status.journal)
    lines.push(`  ${e.time} ${e.step}${typeof e['summary'] === 'string' ? ` ${e['summary']}` : ''}`);
  return `${lines.join('\n')}\n`;
}
