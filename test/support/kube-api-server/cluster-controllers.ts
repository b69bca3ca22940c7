// Simulated control-plane controllers behind the test API server (a simulator): what finishes a deletion on a real
// cluster after the DELETE returned — the garbage collector (owner references, `orphan` and `foregroundDeletion`
// finalizers), the namespace controller (empties a Terminating namespace) and the kubelet (ends a Pod's grace period).
// They run asynchronously, a short delay after a write, so a client sees the in-between states a real cluster shows.
import type { ObjectStore, StoredEntry } from './object-store.ts';
import { ApiFailureError } from './status.ts';

interface OwnerReference {
  readonly uid: string;
  readonly controller?: boolean;
}

const ownersOf = (e: StoredEntry) => (e.object.metadata['ownerReferences'] as OwnerReference[] | undefined) ?? [];
const finalizersOf = (e: StoredEntry) => (e.object.metadata['finalizers'] as string[] | undefined) ?? [];
const deleting = (e: StoredEntry) => e.object.metadata['deletionTimestamp'] !== undefined;
const nameOf = (e: StoredEntry) => String(e.object.metadata['name']);

export class ClusterControllers {
  readonly #store: ObjectStore;
  readonly #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #paused = false;

  constructor(store: ObjectStore, delayMs: number) {
    this.#store = store;
    this.#delayMs = delayMs;
  }

  /** Runs the controllers a little later (each write that may leave work calls it). */
  schedule(): void {
    if (this.#closed || this.#paused || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // One step per pass, so in-between states (orphaned Pods, a Job waiting on its Pods) are observable.
      if (this.step()) this.schedule();
    }, this.#delayMs);
  }

  /** Holds the controllers (a slow control plane), so a test can look at the in-between state deterministically. */
  pause(): void {
    this.#paused = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  resume(): void {
    this.#paused = false;
    this.schedule();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /** One pass of every controller; true when it changed something (then another pass follows). */
  step(): boolean {
    const entries = this.#store.entries();
    const live = new Set(entries.map((e) => String(e.object.metadata['uid'])));
    let changed = false;
    for (const e of entries) {
      try {
        changed = this.#reconcile(e, entries, live) || changed;
      } catch (error) {
        // Changed or gone during this pass (404, 409): its next write schedules another pass, as a watch would.
        if (!(error instanceof ApiFailureError)) throw error;
      }
    }
    return changed;
  }

  #reconcile(e: StoredEntry, entries: readonly StoredEntry[], live: ReadonlySet<string>): boolean {
    const uid = e.object.metadata['uid'];
    const dependents = () => entries.filter((x) => ownersOf(x).some((o) => o.uid === uid));
    if (e.type.kind === 'Namespace' && deleting(e)) return this.#finishNamespace(e, entries);
    if (deleting(e) && finalizersOf(e).includes('orphan')) {
      // Orphan: the dependents lose their owner reference, then the owner's finalizer goes.
      for (const d of dependents()) this.#update(d, { ownerReferences: ownersOf(d).filter((o) => o.uid !== uid) });
      this.#update(e, { finalizers: finalizersOf(e).filter((f) => f !== 'orphan') });
      return true;
    }
    if (deleting(e) && finalizersOf(e).includes('foregroundDeletion')) {
      // Foreground: the owner stays until every dependent is gone.
      // A write is a change; waiting on terminating dependents is not (their own deletion schedules the next pass).
      const left = dependents();
      let wrote = false;
      for (const d of left.filter((x) => !deleting(x))) {
        this.#store.delete(d.type, d.namespace, nameOf(d), { propagationPolicy: 'Background' });
        wrote = true;
      }
      if (left.length === 0) {
        this.#update(e, { finalizers: finalizersOf(e).filter((f) => f !== 'foregroundDeletion') });
        wrote = true;
      }
      return wrote;
    }
    if (
      deleting(e) &&
      e.type.kind === 'Pod' &&
      finalizersOf(e).length === 0 &&
      Number(e.object.metadata['deletionGracePeriodSeconds'] ?? 0) > 0
    ) {
      // The kubelet stopped the containers: the Pod is deleted with a zero grace period.
      this.#store.remove(e.type, e.namespace, nameOf(e));
      return true;
    }
    const owners = ownersOf(e);
    if (!deleting(e) && owners.length > 0 && owners.every((o) => !live.has(o.uid))) {
      // Background: every owner is gone, so the dependent is collected.
      this.#store.delete(e.type, e.namespace, nameOf(e), { propagationPolicy: 'Background' });
      return true;
    }
    return false;
  }

  #finishNamespace(ns: StoredEntry, entries: readonly StoredEntry[]): boolean {
    const name = nameOf(ns);
    const content = entries.filter((e) => e.type.kind !== 'Namespace' && e.namespace === name);
    const alive = content.filter((e) => !deleting(e));
    for (const e of alive) this.#store.delete(e.type, e.namespace, nameOf(e), {});
    const spec = (ns.object['spec'] ?? {}) as { finalizers?: string[] };
    if (content.length > 0 || !(spec.finalizers ?? []).includes('kubernetes')) return alive.length > 0;
    this.#store.update(
      ns.type,
      '',
      name,
      { ...ns.object, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') } },
      undefined,
    );
    if (finalizersOf(ns).length === 0) this.#store.remove(ns.type, '', name);
    return true;
  }

  #update(e: StoredEntry, metadata: Record<string, unknown>): void {
    const current = this.#store.get(e.type, e.namespace, nameOf(e));
    const next = { ...current, metadata: { ...current.metadata, ...metadata } };
    if (Array.isArray(metadata['ownerReferences']) && metadata['ownerReferences'].length === 0)
      delete next.metadata['ownerReferences'];
    if (Array.isArray(metadata['finalizers']) && metadata['finalizers'].length === 0)
      delete next.metadata['finalizers'];
    this.#store.update(e.type, e.namespace, nameOf(e), next, undefined);
  }
}
