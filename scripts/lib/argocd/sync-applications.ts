import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import { applicationState, describeState, settledAt } from './application-state.ts';
import type { ApplicationState } from './application-state.ts';
import { SyncError } from './sync-error.ts';
import { isConflict } from '../ports/kube-error.ts';

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
  /**
   * Children synced once at the commit even when automated and already Synced: those whose images this delivery
   * built. Argo CD compares no hook, so a change only hooks see (a new migration) would otherwise never run.
   */
  readonly resync?: readonly string[];
}

const INITIATOR = { username: 'pharos-devbox', automated: false };

/** A merge patch pinned to the resourceVersion read; false when the Application changed meanwhile (the next pass re-reads). */
async function casPatch(
  kube: Kube,
  namespace: string,
  object: KubeObject,
  patch: Record<string, unknown>,
): Promise<boolean> {
  try {
    await kube.mergePatch('Application', namespace, object.metadata.name, {
      ...patch,
      metadata: { resourceVersion: object.metadata.resourceVersion },
    });
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}

/**
 * Pure: whether the delivery asks Argo CD for a sync of this Application now. The root and manual children when not
 * settled; a child to resync once the root rendered it at the commit, unless a sync at the commit already succeeded;
 * any child whose last sync at the commit failed (automated sync does not retry a failed revision).
 */
export function needsSync(state: ApplicationState, root: boolean, resync: boolean, commit: string): boolean {
  if (root) return !settledAt(state, commit);
  const last = state.lastOperation?.revision === commit ? state.lastOperation.phase : undefined;
  if (state.syncRevision === commit && last !== undefined && last !== 'Succeeded') return true;
  if (resync) return state.syncRevision === commit && last !== 'Succeeded';
  return !settledAt(state, commit) && !state.automated;
}

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
    let pending = false; // a write tried in this pass: the states read before it are not its outcome
    const known = new Map((first ? (options.known ?? []) : []).map((o) => [o.metadata.name, o]));
    first = false;
    const objects = await Promise.all(names.map((name) => known.get(name) ?? kube.get('Application', namespace, name)));
    for (const [i, name] of names.entries()) {
      const object = objects[i];
      if (object === undefined) {
        if (name === options.root)
          throw new SyncError('sync-failed', `Cannot sync: root Application "${namespace}/${name}" does not exist`);
        states.push({
          name,
          automated: false,
          syncStatus: 'Missing',
          syncRevision: undefined,
          health: 'Missing',
          healthMessage: undefined,
          operation: undefined,
        });
        continue;
      }
      const state = applicationState(object);
      states.push(state);
      const rootReady = name === options.root || settledAt(states[0] as ApplicationState, commit);
      if (state.operation !== undefined && state.operation.revision !== commit && state.operation.phase === 'Running') {
        log(
          `sync: terminating the operation of ${name} for superseded revision ${state.operation.revision?.slice(0, 12) ?? '?'}`,
        );
        if (!(await casPatch(kube, namespace, object, { status: { operationState: { phase: 'Terminating' } } })))
          pending = true;
      } else if (
        requested.has(name) &&
        state.operation === undefined &&
        state.lastOperation !== undefined &&
        state.lastOperation.phase !== 'Succeeded' &&
        state.lastOperation.revision === commit
      ) {
        // Our sync finished and failed (a hook, an apply): report Argo CD's reason now rather than at the timeout.
        throw new SyncError(
          'sync-failed',
          `Cannot finish the delivery of ${commit.slice(0, 12)}: Argo CD's sync of "${name}" ${state.lastOperation.phase === 'Error' ? 'errored' : 'failed'}: ${state.lastOperation.message ?? '(no message)'}`,
          {
            details: { application: name, operation: state.lastOperation },
          },
        );
      } else if (
        state.operation === undefined &&
        rootReady &&
        !requested.has(name) &&
        needsSync(state, name === options.root, (options.resync ?? []).includes(name), commit)
      ) {
        // Only on the object as read: a request written over an operation that started meanwhile would replace it.
        pending = true;
        if (
          await casPatch(kube, namespace, object, { operation: { initiatedBy: INITIATOR, sync: { revision: commit } } })
        ) {
          requested.add(name);
          log(`sync: requested a sync of ${name} at ${commit.slice(0, 12)}`);
        }
      }
    }
    if (!pending && states.every((state) => settledAt(state, commit))) return states;
    const summary = states.map(describeState).join('; ');
    if (summary !== last) log(`sync: waiting: ${summary}`);
    last = summary;
    const failed = states.find(
      (s) => s.health === 'Degraded' && s.syncRevision === commit && s.operation === undefined,
    );
    if (clock.now().getTime() > deadline) {
      throw new SyncError(
        'sync-timeout',
        `Cannot finish the delivery of ${commit.slice(0, 12)}: Applications not Synced and Healthy at it within ${Math.round(options.timeoutMs / 1000)} s (${summary})`,
        {
          details: { states, degraded: failed?.name },
        },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
  }
}
