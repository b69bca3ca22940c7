import { readlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Exec } from '../ports/exec.ts';
import { appliedView } from './applied-record.ts';
import { channelEvidence } from './channel-evidence.ts';
import { GIB, leastFreeBytes, minFreeBytes } from './disk-space.ts';
import { hostPaths } from './host-paths.ts';
import { readLastTick } from './last-tick.ts';
import type { LastTick } from './last-tick.ts';
import { readApplied } from './read-applied.ts';
import { toolingPending } from './adopt-tooling.ts';
import { targetName } from './retained-locks.ts';
import type { TickContext } from './tick-context.ts';

export interface ServiceStatus {
  readonly stack: string;
  readonly service: string;
  readonly image: string;
  readonly state: string;
  readonly health: string | null;
}

/** What `reconcile-deployment.ts status` reports: what runs, from which signed request, how the last tick ended. */
export interface HostStatus {
  readonly channel: string;
  readonly applied: {
    readonly release: string | null;
    readonly commit: string | null;
    readonly appliedAt: string;
    readonly previous: string | null;
  } | null;
  readonly request:
    | {
        readonly version: number | null;
        readonly expires: string | null;
        readonly signer: string;
        readonly deployStateCommit: string;
      }
    | { readonly error: string }
    | null;
  readonly services: readonly ServiceStatus[];
  readonly lastTick: LastTick | null;
  readonly tooling: { readonly link: string | null; readonly pending: boolean };
  readonly disk: { readonly freeBytes: number | null; readonly path: string | null; readonly minFreeBytes: number };
  readonly nextRun: string | null;
}

/**
 * Reads only: applied.json, the request it accepted (verified again from the cache), what the applier runs (its
 * `services`), last-tick.json, the timer.
 */
export async function hostStatus(
  ctx: TickContext,
  run: Exec,
  running: (ctx: TickContext) => Promise<readonly ServiceStatus[]> = async () => [],
): Promise<HostStatus> {
  const { config, ports } = ctx;
  const root = config.HEPHAESTUS_ROOT;
  const applied = await readApplied(root);
  const view = applied === undefined ? undefined : appliedView(applied);
  let request: HostStatus['request'] = null;
  if (view !== undefined) {
    try {
      const evidence = await channelEvidence(
        ports.git(hostPaths.cache(root)),
        view.channelCommit,
        config.HEPHAESTUS_CHANNEL,
        await ctx.trust('promote'),
      );
      request = evidence.ok
        ? {
            version: evidence.channel.version ?? null,
            expires: evidence.channel.expires ?? null,
            signer: evidence.signer ?? 'unknown',
            deployStateCommit: view.channelCommit,
          }
        : { error: evidence.message };
    } catch (error) {
      request = { error: (error as Error).message };
    }
  }
  const services = [...(await running(ctx))];
  const link = await readlink(join(root, 'tooling')).then(
    (t) => resolve(root, t),
    () => null,
  );
  const free = await leastFreeBytes(ctx).catch(() => undefined);
  const timer = await run('systemctl', [
    'show',
    'hephaestus-reconcile.timer',
    '--property=NextElapseUSecRealtime',
    '--value',
  ]).catch(() => undefined);
  const next = timer?.code === 0 ? timer.stdout.toString('utf8').trim() : '';
  return {
    channel: config.HEPHAESTUS_CHANNEL,
    applied:
      view === undefined || applied === undefined
        ? null
        : {
            release: view.release ?? null,
            commit: view.commit ?? null,
            appliedAt: applied.record.appliedAt,
            previous: targetName(applied.record.previous) ?? null,
          },
    request,
    services: services.sort((a, b) => `${a.stack}/${a.service}`.localeCompare(`${b.stack}/${b.service}`)),
    lastTick: (await readLastTick(root)) ?? null,
    tooling: { link, pending: await toolingPending(ctx, view) },
    disk: { freeBytes: free?.bytes ?? null, path: free?.path ?? null, minFreeBytes: minFreeBytes(config) },
    nextRun: next === '' || next === 'n/a' ? null : next,
  };
}

/** The human form: one fact a line, the way an operator reads a host. Pure. */
export function formatStatus(s: HostStatus): string {
  const lines = [`channel: ${s.channel}`];
  if (s.applied === null) lines.push('applied: nothing yet (first install pending)');
  else
    lines.push(
      `applied: ${s.applied.release ?? s.applied.commit} (commit ${s.applied.commit ?? 'unknown'}) at ${s.applied.appliedAt}; previous ${s.applied.previous ?? 'none'}`,
    );
  if (s.request !== null)
    lines.push(
      'error' in s.request
        ? `request: cannot verify: ${s.request.error}`
        : `request: channel version ${s.request.version ?? '-'}, expires ${s.request.expires ?? '-'}, signed by ${s.request.signer}, deploy-state ${s.request.deployStateCommit}`,
    );
  lines.push(s.services.length === 0 ? 'services: none running' : 'services:');
  for (const svc of s.services)
    lines.push(
      `  ${svc.stack}/${svc.service}  ${svc.state}${svc.health === null ? '' : ` (${svc.health})`}  ${svc.image}`,
    );
  const t = s.lastTick;
  lines.push(
    t === null
      ? 'last tick: none recorded'
      : `last tick: ${t.result} (exit ${t.exit}) at ${t.finishedAt}; decision ${t.decision ?? '-'} (${t.reason ?? '-'}); ${t.message}`,
  );
  lines.push(
    `tooling: ${s.tooling.link ?? 'no link'}${s.tooling.pending ? " (adoption pending: see the journal's adopt line; without a recorded commit, promote the running release again)" : ''}`,
  );
  lines.push(
    `free space: ${s.disk.freeBytes === null ? 'unknown' : `${(s.disk.freeBytes / GIB).toFixed(1)} GiB on ${s.disk.path}`} (refuses pulls below ${(s.disk.minFreeBytes / GIB).toFixed(0)} GiB)`,
  );
  lines.push(`next run: ${s.nextRun ?? 'unknown (no systemd timer here)'}`);
  return `${lines.join('\n')}\n`;
}
