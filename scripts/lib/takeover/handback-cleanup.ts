// Hand-back steps 1-2 of the spec as three journaled steps: stop the local runtimes; detach the replacements and
// release the containers' aliases; remove the traffic agents, queued until every local runtime has stopped.
import type { LeaseRecord } from '../ownership/lease-record.ts';
import { leasedApplications, namespacesOf } from '../ownership/lease-projects.ts';
import type { RuntimeHandle } from './runtime/local-runtime.ts';
import { describeHandle, runtimeOf } from './runtime/local-runtime.ts';
import { removeNetwork } from './runtime/docker-runtime.ts';
import { journal, leaseEntries } from './lease-journal.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from './takeover-context.ts';
import { leaseId } from '../ownership/holder.ts';
import type { Replacement } from '../ownership/workload-replacement.ts';
import { viaOf } from '../ownership/workload-replacement.ts';

const AGENT_WAIT_MS = 30_000;

const handleKey = (h: RuntimeHandle) => h.name ?? h.container ?? `pid:${h.pid}`;

/** Runtime handles this lease journaled (any run of this checkout, restarts included), plus the ones this process holds. */
export async function journaledRuntimes(
  ctx: TakeoverContext,
  record: LeaseRecord,
  extra: readonly RuntimeHandle[] = [],
): Promise<RuntimeHandle[]> {
  const entries = await leaseEntries(ctx, leaseId(record));
  const handles = entries
    .filter((e) => e.step === 'runtime' && (typeof e['pid'] === 'number' || typeof e['container'] === 'string'))
    .map(
      (e): RuntimeHandle => ({
        image: String(e['image']),
        runtime: typeof e['runtime'] === 'string' ? e['runtime'] : 'native',
        command: (e['argv'] as string[] | undefined) ?? [],
        ...(typeof e['pid'] === 'number' ? { pid: e['pid'] } : {}),
        ...(typeof e['container'] === 'string' ? { container: e['container'] } : {}),
        ...(typeof e['name'] === 'string' ? { name: e['name'] } : {}),
      }),
    );
  return [...extra, ...handles].filter((h, i, all) => all.findIndex((o) => handleKey(o) === handleKey(h)) === i);
}

/** What the runtimes on this workstation find by the lease's label (whoever started them), running or stopped. */
export async function labelledRuntimes(ctx: TakeoverContext, record: LeaseRecord): Promise<RuntimeHandle[]> {
  const found: RuntimeHandle[] = [];
  for (const runtime of Object.values(ctx.runtimes)) found.push(...((await runtime.find?.(leaseId(record))) ?? []));
  return found;
}

/** The journaled runtimes and those found by label: a container started but never journaled complete is one of them. */
export async function leaseRuntimes(
  ctx: TakeoverContext,
  record: LeaseRecord,
  extra: readonly RuntimeHandle[] = [],
): Promise<RuntimeHandle[]> {
  const all = [...(await journaledRuntimes(ctx, record, extra)), ...(await labelledRuntimes(ctx, record))];
  return all.filter((h, i) => all.findIndex((o) => handleKey(o) === handleKey(h)) === i);
}

/** Replacements this lease journaled, so a hand-back after a crash detaches them even if the cluster cannot say. */
export async function journaledReplacements(ctx: TakeoverContext, record: LeaseRecord): Promise<Replacement[]> {
  const entries = await leaseEntries(ctx, leaseId(record));
  return entries
    .filter((e) => e.step === 'replace' && typeof e['workload'] === 'object')
    .map((e) => ({
      workload: e['workload'] as Replacement['workload'],
      lease: leaseId(record),
      via: typeof e['via'] === 'string' ? e['via'] : 'scale-to-zero',
      ...(typeof e['replicas'] === 'number' ? { replicas: e['replicas'] } : {}),
      ...(typeof e['port'] === 'string' ? { port: e['port'] } : {}),
    }));
}

export async function stopRuntimes(
  ctx: TakeoverContext,
  handles: readonly RuntimeHandle[],
  state?: LeaseState,
): Promise<string[]> {
  const stopped: string[] = [];
  for (const handle of handles) {
    const runtime = ctx.runtimes[runtimeOf(handle)];
    if (runtime === undefined || !(await runtime.stop(handle))) continue;
    stopped.push(describeHandle(handle));
    if (state !== undefined)
      await journal(ctx, state, 'handback:cleanup', {
        action: 'stop',
        image: handle.image,
        summary: `stopped ${describeHandle(handle)}`,
      });
  }
  return stopped;
}

const stop: LeaseStep = {
  name: 'stop',
  async run(ctx, state) {
    const stopped = await stopRuntimes(ctx, await leaseRuntimes(ctx, state.record, state.runtimes), state);
    state.runtimes = [];
    return { summary: stopped.length === 0 ? 'no local runtime running' : `stopped ${stopped.join(', ')}` };
  },
};

const sameWorkload = (a: Replacement, b: Replacement) =>
  JSON.stringify(a.workload) === JSON.stringify(b.workload) && viaOf(a) === viaOf(b);

const detach: LeaseStep = {
  name: 'detach',
  async run(ctx, state) {
    const id = leaseId(state.record);
    const apps = await leasedApplications(ctx.kube, ctx.profile.namespaces.argocd, state.record.applications);
    const namespaces = namespacesOf(apps);
    const found = await ctx.replacements['scale-to-zero']!.find(namespaces, id);
    const all = [...state.replacements, ...(await journaledReplacements(ctx, state.record)), ...found].filter(
      (r, i, list) => list.findIndex((o) => sameWorkload(o, r)) === i,
    );
    const detached: string[] = [];
    for (const replacement of all) {
      const port = ctx.replacements[viaOf(replacement)];
      if (port === undefined || !(await port.restore(replacement))) continue;
      const { kind, namespace, name } = replacement.workload;
      const what =
        viaOf(replacement) === 'scale-to-zero'
          ? `${kind} ${namespace}/${name} to ${replacement.replicas ?? 1}`
          : `${kind} ${namespace}/${name} (telepresence detach)`;
      detached.push(what);
      await journal(ctx, state, 'handback:cleanup', {
        action: 'detach',
        via: viaOf(replacement),
        workload: replacement.workload,
        summary: `detached ${what}`,
      });
      await ctx.afterStep?.('handback:detach-one');
    }
    // The containers are gone (step stop): their Services' names leave with the takeover's network.
    if (await removeNetwork(ctx.network)) {
      detached.push(`network ${ctx.network} and its aliases`);
      await journal(ctx, state, 'handback:cleanup', {
        action: 'aliases',
        network: ctx.network,
        summary: `removed network ${ctx.network} and its aliases`,
      });
    }
    state.replacements = [];
    return {
      summary: detached.length === 0 ? 'nothing to detach' : `detached ${detached.join(', ')}`,
      fields: { detached },
    };
  },
};

/**
 * Namespaces where this lease made Telepresence replacements (their agents are ours to remove) or connected in Docker
 * mode (its daemon container is ours to quit, replaced or not).
 */
export async function agentNamespaces(ctx: TakeoverContext, record: LeaseRecord): Promise<string[]> {
  const journaled = await journaledReplacements(ctx, record);
  const connected = (await leaseEntries(ctx, leaseId(record)))
    .filter((e) => e.step === 'connect' && typeof e['namespace'] === 'string')
    .map((e) => String(e['namespace']));
  return [
    ...new Set([
      ...journaled.filter((r) => viaOf(r) === 'telepresence').map((r) => r.workload.namespace),
      ...connected,
    ]),
  ].sort();
}

const agents: LeaseStep = {
  name: 'agents',
  async run(ctx, state) {
    const namespaces = await agentNamespaces(ctx, state.record);
    const port = ctx.replacements['telepresence'];
    if (namespaces.length === 0 || port?.removeAgents === undefined) return { summary: 'no traffic agent to remove' };
    // Removal is queued until every local runtime has stopped: the namespace-scoped uninstall reconnects.
    const handles = await leaseRuntimes(ctx, state.record);
    const deadline = Date.now() + AGENT_WAIT_MS;
    for (let queued = false; ; ) {
      const running: string[] = [];
      for (const h of handles) if (await ctx.runtimes[runtimeOf(h)]?.running(h)) running.push(describeHandle(h));
      if (running.length === 0) break;
      if (!queued) {
        queued = true;
        ctx.log(`agent removal queued until ${running.join(', ')} stopped`);
        await journal(ctx, state, 'handback:cleanup', {
          action: 'agents-queued',
          waiting: running,
          summary: `agent removal queued until ${running.join(', ')} stopped`,
        });
      }
      if (Date.now() > deadline) {
        await stopRuntimes(ctx, handles, state);
        ctx.log(`stopped what still ran after ${AGENT_WAIT_MS / 1000}s: ${running.join(', ')}`);
      }
      await new Promise((r) => setTimeout(r, ctx.pollMs));
    }
    const removed: string[] = [];
    for (const namespace of namespaces) {
      const gone = await port.removeAgents(namespace);
      removed.push(`${namespace} [${gone.join(', ')}]`);
      await journal(ctx, state, 'handback:cleanup', {
        action: 'agents',
        namespace,
        workloads: gone,
        summary: `removed the traffic agents of namespace ${namespace}: ${gone.join(', ') || 'none left'}`,
      });
    }
    return { summary: `removed the traffic agents of ${removed.join(', ')}` };
  },
};

export const CLEANUP_STEPS: readonly LeaseStep[] = [stop, detach, agents];
