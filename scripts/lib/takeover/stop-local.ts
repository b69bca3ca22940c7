// What a workstation stops of a lease being removed: its runtimes, and the Telepresence routes and agents.
import type { LeaseRecord } from '../ownership/lease-record.ts';
import {
  agentNamespaces,
  journaledReplacements,
  labelledRuntimes,
  leaseRuntimes,
  stopRuntimes,
} from './handback-cleanup.ts';
import { leasedApplications, namespacesOf } from '../ownership/lease-projects.ts';
import { sameHolder } from '../ownership/holder.ts';
import { viaOf } from '../ownership/workload-replacement.ts';
import type { TakeoverContext } from './takeover-context.ts';

/**
 * Stops what this workstation can see of a lease another command is removing: this checkout's journaled runtimes,
 * any holder's containers by the lease's label on this Docker engine, and the Telepresence replacements and agents.
 */
export function stopLocalFor(ctx: TakeoverContext): (record: LeaseRecord) => Promise<string[]> {
  return async (record) => {
    const ours = sameHolder(record.holder, ctx.holder);
    const telepresence = ctx.replacements['telepresence'];
    if (!ours) {
      // Another holder's journal is not here: end the routes into the leased namespaces first, then its containers.
      const done: string[] = [];
      const apps = await leasedApplications(ctx.kube, ctx.profile.namespaces.argocd, record.applications);
      for (const ns of [...new Set(namespacesOf(apps))].sort()) {
        try {
          done.push(...((await telepresence?.clear?.(ns)) ?? []));
        } catch (error) {
          done.push(`could not reach Telepresence for namespace ${ns}: ${(error as Error).message}`);
        }
      }
      done.push(...(await stopRuntimes(ctx, await labelledRuntimes(ctx, record))).map((s) => `stopped ${s}`));
      return done;
    }
    const done = (await stopRuntimes(ctx, await leaseRuntimes(ctx, record))).map((s) => `stopped ${s}`);
    if (telepresence === undefined) return done;
    // Telepresence replacements live on this workstation's connection: the cluster cleanup cannot see them.
    const routed = (await journaledReplacements(ctx, record)).filter((r) => viaOf(r) === 'telepresence');
    for (const r of routed)
      if (await telepresence.restore(r))
        done.push(`left the Telepresence replacement of ${r.workload.namespace}/${r.workload.name}`);
    // Removing the agents ends with `quit`, which also ends a daemon container a Docker-mode connection started.
    for (const ns of await agentNamespaces(ctx, record)) await telepresence.removeAgents?.(ns);
    return done;
  };
}
