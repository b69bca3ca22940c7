// What `takeover status` adds to the lease: the local runtimes (running or not), the replacements still in place
// and the traffic agents, with agent removals a hand-back has queued.
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { journaledRuntimes } from './handback-cleanup.ts';
import { leasedApplications, namespacesOf } from '../ownership/lease-projects.ts';
import { describeHandle, runtimeOf } from './runtime/local-runtime.ts';
import { leaseEntries } from './lease-journal.ts';
import type { TakeoverContext } from './takeover-context.ts';
import { leaseId } from '../ownership/holder.ts';
import type { Replacement } from '../ownership/workload-replacement.ts';
import { viaOf } from '../ownership/workload-replacement.ts';

export interface LiveStatus {
  readonly runtimes: readonly {
    readonly image: string;
    readonly runtime: string;
    readonly handle: string;
    readonly running: boolean;
    readonly hostPort?: number;
  }[];
  readonly replacements: readonly Replacement[];
  readonly agents: Readonly<Record<string, readonly string[]>>;
  /** Agent removals a hand-back queued and has not done yet: the runtimes they wait for. */
  readonly queuedAgentRemovals: readonly string[];
}

export async function liveStatus(ctx: TakeoverContext, record: LeaseRecord): Promise<LiveStatus> {
  const entries = await leaseEntries(ctx, leaseId(record));
  const handles = await journaledRuntimes(ctx, record);
  const runtimes = [];
  for (const h of handles) {
    const running = (await ctx.runtimes[runtimeOf(h)]?.running(h)) ?? false;
    runtimes.push({
      image: h.image,
      runtime: runtimeOf(h),
      handle: describeHandle(h),
      running,
      ...(typeof h.hostPort === 'number' ? { hostPort: h.hostPort } : {}),
    });
  }
  const key = (r: { workload: unknown; via?: string }) => `${JSON.stringify(r.workload)} ${r.via ?? 'scale-to-zero'}`;
  const detached = new Set(
    entries.filter((e) => e.step === 'handback:cleanup' && e['action'] === 'detach').map((e) => key(e as never)),
  );
  const replacements = entries
    .filter((e) => e.step === 'replace' && typeof e['workload'] === 'object')
    .map((e) => ({
      workload: e['workload'] as Replacement['workload'],
      lease: leaseId(record),
      via: typeof e['via'] === 'string' ? e['via'] : 'scale-to-zero',
      ...(typeof e['port'] === 'string' ? { port: e['port'] } : {}),
      ...(typeof e['replicas'] === 'number' ? { replicas: e['replicas'] } : {}),
    }))
    .filter((r, i, all) => !detached.has(key(r)) && all.findIndex((o) => key(o) === key(r)) === i);
  const apps = await leasedApplications(ctx.kube, ctx.profile.namespaces.argocd, record.applications);
  const namespaces = namespacesOf(apps);
  const telepresence = ctx.replacements['telepresence'];
  const uses =
    replacements.some((r) => viaOf(r) === 'telepresence') || entries.some((e) => e['action'] === 'agents-queued');
  const agents =
    uses && telepresence?.agents !== undefined ? await telepresence.agents(namespaces).catch(() => ({})) : {};
  const lastQueued = entries.findLastIndex((e) => e['action'] === 'agents-queued');
  const removedAfter = lastQueued >= 0 && entries.slice(lastQueued).some((e) => e['action'] === 'agents');
  const queuedAgentRemovals =
    lastQueued >= 0 && !removedAfter ? ((entries[lastQueued]!['waiting'] as string[] | undefined) ?? []) : [];
  return { runtimes, replacements, agents, queuedAgentRemovals };
}

export function formatLive(live: LiveStatus): string[] {
  const lines: string[] = [];
  for (const r of live.runtimes)
    lines.push(
      `  runtime: ${r.runtime} ${r.handle}${r.hostPort === undefined ? '' : ` on 127.0.0.1:${r.hostPort}`} ${r.running ? 'running' : 'stopped'}`,
    );
  for (const r of live.replacements)
    lines.push(
      `  replacement: ${viaOf(r)} ${r.workload.kind} ${r.workload.namespace}/${r.workload.name}${r.port === undefined ? '' : ` port ${r.port}`}${r.replicas === undefined ? '' : ` (was ${r.replicas} replicas)`}`,
    );
  for (const [ns, names] of Object.entries(live.agents)) lines.push(`  agents: ${ns} [${names.join(', ')}]`);
  if (live.queuedAgentRemovals.length > 0)
    lines.push(`  agent removal queued until stopped: ${live.queuedAgentRemovals.join(', ')}`);
  return lines;
}
