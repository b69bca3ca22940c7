// Sync phases, waves and hooks as Argo CD runs them (gitops-engine sync_context.go), for the simulator: each
// (phase, wave) group is applied in order; before the next group every resource of a multi-step sync must be
// Healthy and every hook finished; a failed hook fails the operation and nothing after it is applied.
import { HOOK_DELETE_POLICY, hookPhases, syncGroups } from '../../../scripts/lib/argocd/sync-order.ts';
import type { Application } from '../../../scripts/lib/argocd/index.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { GenericClient } from './generic-client.ts';
import type { Manifest } from './manifest.ts';
import { applyManifests } from './sync-operation.ts';
import type { ResourceResult } from './sync-operation.ts';
import type { ResourceStatus } from './app-comparison.ts';
import { resourceHealth } from './resource-health.ts';
import { TRACKING_ANNOTATION } from './resource-diff.ts';
import { trackingId } from './app-comparison.ts';

/** Runs a hook Job the way its pod would (the test decides what that is) and says whether it succeeded. */
export type HookRunner = (job: Manifest, application: string) => Promise<{ succeeded: boolean; message?: string }>;

/** Where a running sync operation stands: the next group, and whether its resources were applied already. */
export interface WaveProgress {
  next: number;
  applied: boolean;
}

export type WaveOutcome =
  | { readonly state: 'running'; readonly message: string }
  | { readonly state: 'failed'; readonly message: string }
  | { readonly state: 'done'; readonly resources: ResourceResult[] };

/** Hooks are not part of the Application's desired state: Argo CD neither compares nor prunes them. */
export const isHook = (m: Manifest): boolean => hookPhases(m) !== undefined;

const policies = (m: Manifest) => (m.metadata.annotations?.[HOOK_DELETE_POLICY] ?? '').split(',').map((p) => p.trim());

async function startHook(
  client: GenericClient,
  kube: Kube,
  app: string,
  hook: Manifest,
  run: HookRunner | undefined,
  log: (line: string) => void,
): Promise<void> {
  const live = await client.read(hook);
  if (live !== undefined) {
    // A named hook is created once; BeforeHookCreation deletes the previous run first.
    if (!policies(hook).includes('BeforeHookCreation')) return;
    await client.delete(live, { propagationPolicy: 'Background', wait: true });
  }
  await client.create({
    ...hook,
    metadata: {
      ...hook.metadata,
      annotations: { ...hook.metadata.annotations, [TRACKING_ANNOTATION]: trackingId(app, hook) },
    },
  });
  log(`hook ${hook.kind}/${hook.metadata.name} created`);
  if (run === undefined || hook.kind !== 'Job') return; // the workload controller completes it
  const result = await run(hook, app);
  const job = await kube.get('Job', hook.metadata.namespace ?? '', hook.metadata.name);
  if (job === undefined) return;
  const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition = result.succeeded
    ? { type: 'Complete', status: 'True', lastTransitionTime: at }
    : {
        type: 'Failed',
        status: 'True',
        reason: 'BackoffLimitExceeded',
        message: result.message ?? 'Job has reached the specified backoff limit',
        lastTransitionTime: at,
      };
  await kube.replaceStatus('Job', job.metadata.namespace ?? '', {
    ...job,
    status: {
      startTime: at,
      ...(result.succeeded ? { succeeded: 1, completionTime: at } : { failed: 1 }),
      conditions: [condition],
    },
  });
}

/** Applies the groups from `progress.next` on; returns running while a group is not ready yet. */
export async function runWaves(
  client: GenericClient,
  kube: Kube,
  application: Application,
  desired: readonly Manifest[],
  prune: readonly ResourceStatus[],
  progress: WaveProgress,
  options: { runHook?: HookRunner; log: (line: string) => void },
): Promise<WaveOutcome> {
  const app = application.metadata.name;
  const groups = syncGroups(desired);
  const multiStep = groups.length > 1;
  for (; progress.next < groups.length; progress.next++, progress.applied = false) {
    const group = groups[progress.next] as (typeof groups)[number];
    const label = `${group.phase} wave ${group.wave}`;
    if (!progress.applied) {
      const plain = group.tasks.filter((t) => !t.hook).map((t) => t.object);
      if (plain.length > 0) await applyManifests(client, application, plain, []);
      options.log(
        `${label}: applied ${group.tasks.map((t) => `${t.hook ? 'hook ' : ''}${t.object.kind}/${t.object.metadata.name}`).join(', ')}`,
      );
      progress.applied = true;
      for (const task of group.tasks.filter((t) => t.hook))
        await startHook(client, kube, app, task.object, options.runHook, options.log);
    }
    const last = progress.next === groups.length - 1;
    for (const task of group.tasks) {
      // The last group of a sync is not waited on for health; hooks always are.
      if (!task.hook && (last || !multiStep)) continue;
      const live = await client.read(task.object);
      const health = resourceHealth(task.object.kind, live as never);
      const what = `${task.object.kind}/${task.object.metadata.name}`;
      if (task.hook && health.status === 'Degraded') {
        if (policies(task.object).includes('HookFailed'))
          await client.delete(task.object, { propagationPolicy: 'Background' });
        return { state: 'failed', message: `${label}: hook ${what} failed: ${health.message ?? ''}` };
      }
      if (health.status !== 'Healthy')
        return { state: 'running', message: `waiting for healthy state of ${what} (${label})` };
      if (task.hook) {
        options.log(`hook ${what} succeeded`);
        if (policies(task.object).includes('HookSucceeded'))
          await client.delete(task.object, { propagationPolicy: 'Background' });
      }
    }
  }
  // Pruning runs once every wave is done; re-applying the plain resources reports each result.
  const resources = await applyManifests(
    client,
    application,
    desired.filter((m) => !isHook(m)),
    prune,
  );
  return { state: 'done', resources };
}
