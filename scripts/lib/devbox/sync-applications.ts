import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import { applicationState, describeState, settledAt } from './application-state.ts';
import type { ApplicationState } from './application-state.ts';
import { DevboxError } from './devbox-error.ts';

export interface SyncOptions {
  readonly kube: Kube;
  readonly namespace: string;
  readonly root: string;
  readonly children: readonly string[];
  readonly commit: string;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly pollMs?: number;
  /** Objects just read or written by the caller, used for the first look instead of reading them again. */
  readonly known?: readonly KubeObject[];
}

const INITIATOR = { username: 'pharos-devbox', automated: false };

/**
 * Syncs the root, then waits until root and children are Synced and Healthy at the commit. An operation running
 * for another (superseded) revision is terminated first, as `argocd app terminate-op` does; children without
 * automated sync get a sync operation once the root has rendered them at the commit.
 */
export async function syncApplications(options: SyncOptions): Promise<ApplicationState[]> {
  const { kube, namespace, commit, clock, log } = options;
  const names = [options.root, ...options.children];
  const deadline = clock.now().getTime() + options.timeoutMs;
  const requested = new Set<string>();
  let pause = options.pollMs ?? 100;
  let last = '';
  let first = true;
  for (;;) {
    const states: ApplicationState[] = [];
    const known = new Map((first ? (options.known ?? []) : []).map((o) => [o.metadata.name, o]));
    first = false;
    const objects = await Promise.all(names.map((name) => known.get(name) ?? kube.get('Application', namespace, name)));
    for (const [i, name] of names.entries()) {
      const object = objects[i];
      if (object === undefined) {
        if (name === options.root) throw new DevboxError('sync-failed', `Cannot sync: root Application "${namespace}/${name}" does not exist`);
        states.push({ name, automated: false, syncStatus: 'Missing', syncRevision: undefined, health: 'Missing', healthMessage: undefined, operation: undefined });
        continue;
      }
      const state = applicationState(object);
      states.push(state);
      const rootReady = name === options.root || settledAt(states[0] as ApplicationState, commit);
      if (state.operation !== undefined && state.operation.revision !== commit && state.operation.phase === 'Running') {
        log(`sync: terminating the operation of ${name} for superseded revision ${state.operation.revision?.slice(0, 12) ?? '?'}`);
        await kube.mergePatch('Application', namespace, name, { status: { operationState: { phase: 'Terminating' } } });
      } else if (state.operation === undefined && !settledAt(state, commit) && rootReady && !requested.has(name) && (name === options.root || !state.automated)) {
        await kube.mergePatch('Application', namespace, name, { operation: { initiatedBy: INITIATOR, sync: { revision: commit } } });
        requested.add(name);
        log(`sync: requested a sync of ${name} at ${commit.slice(0, 12)}`);
      }
    }
    if (states.every((state) => settledAt(state, commit))) return states;
    const summary = states.map(describeState).join('; ');
    if (summary !== last) log(`sync: waiting: ${summary}`);
    last = summary;
    const failed = states.find((s) => s.health === 'Degraded' && s.syncRevision === commit && s.operation === undefined);
    if (clock.now().getTime() > deadline) {
      throw new DevboxError('sync-timeout', `Cannot finish the delivery of ${commit.slice(0, 12)}: Applications not Synced and Healthy at it within ${Math.round(options.timeoutMs / 1000)} s (${summary})`, {
        details: { states, degraded: failed?.name },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
  }
}
