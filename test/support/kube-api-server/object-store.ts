// In-memory object store with the API server's write semantics: resourceVersion, uid, generation, CAS, status subresource.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../../scripts/lib/ports/clock.ts';
import { apiVersionOf } from './resources.ts';
import type { ResourceType } from './resources.ts';
import { ApiFailureError, alreadyExists, conflict, failure, notFound, uidConflict } from './status.ts';
import { isPlainObject } from './merge-patch.ts';
import { matchesSelector } from './label-selector.ts';
import { immutableChange } from './immutable-fields.ts';
import type { Requirement } from './label-selector.ts';

export type KubeObject = Record<string, unknown> & { metadata: Record<string, unknown> };

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly resource: ResourceType;
  readonly namespace: string;
  readonly revision: number;
  readonly object: KubeObject;
  /** The state before a MODIFIED: a selector watch turns it into ADDED or DELETED when the object enters or leaves. */
  readonly previous?: KubeObject;
}

export interface StoredEntry {
  readonly type: ResourceType;
  readonly namespace: string;
  readonly object: KubeObject;
}

export interface DeleteOptions {
  readonly resourceVersion?: string;
  readonly uid?: string;
  readonly propagationPolicy?: string;
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
  readonly dryRun?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function unconditionalUpdate(type: ResourceType, name: string) {
  const body = 'Invalid value: 0x0: must be specified for an update';
  return failure(
    422,
    `${type.plural}.${type.group} "${name}" is invalid: metadata.resourceVersion: ${body}`,
    'Invalid',
    {
      name,
      group: type.group,
      kind: type.plural,
      causes: [{ reason: 'FieldValueInvalid', message: body, field: 'metadata.resourceVersion' }],
    },
  );
}

function fail(code: number, message: string): never {
  throw new ApiFailureError(failure(code, message));
}

function meta(obj: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(obj['metadata']) ? obj['metadata'] : {};
}

function withoutVolatile(obj: Record<string, unknown>, type: ResourceType): unknown {
  const { metadata: _m, status, ...rest } = obj;
  return type.statusSubresource ? rest : { ...rest, status };
}

export class ObjectStore {
  readonly #objects = new Map<string, StoredEntry>();
  readonly #clock: Clock;
  #revision = 1000;
  readonly #history: WatchEvent[] = [];
  #dropped = 0;
  readonly #listeners = new Set<(event: WatchEvent) => void>();

  readonly #historySize: number;

  /** `historySize`: how many past events a watch from an older resourceVersion can replay (else 410 Gone). */
  constructor(clock: Clock, historySize = 1000) {
    this.#clock = clock;
    this.#historySize = historySize;
  }

  #key(type: ResourceType, namespace: string, name: string): string {
    return `${type.group}/${type.plural}/${namespace}/${name}`;
  }

  get revision(): string {
    return String(this.#revision);
  }

  /** Events after `since` (undefined when some were already dropped: 410 Gone), then live ones until `stop`. */
  watch(since: number, listener: (event: WatchEvent) => void): { replay: WatchEvent[] | undefined; stop: () => void } {
    const replay = since < this.#dropped ? undefined : this.#history.filter((e) => e.revision > since);
    this.#listeners.add(listener);
    return { replay, stop: () => this.#listeners.delete(listener) };
  }

  #emit(
    type: WatchEvent['type'],
    resource: ResourceType,
    namespace: string,
    object: KubeObject,
    previous?: KubeObject,
  ): void {
    const event: WatchEvent = {
      type,
      resource,
      namespace,
      revision: this.#revision,
      object: structuredClone(object),
      ...(previous ? { previous: structuredClone(previous) } : {}),
    };
    this.#history.push(event);
    if (this.#history.length > this.#historySize) this.#dropped = this.#history.shift()?.revision ?? this.#dropped;
    for (const listener of this.#listeners) listener(event);
  }

  get(type: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.#objects.get(this.#key(type, namespace, name));
    if (!found) throw new ApiFailureError(notFound(type.plural, type.group, name));
    return structuredClone(found.object);
  }

  /** Every stored object (the simulated controllers walk them). */
  entries(): StoredEntry[] {
    return [...this.#objects.values()].map((e) => ({ ...e, object: structuredClone(e.object) }));
  }

  /** A namespace exists until its deletion is finalized; `terminating` while it is being deleted. */
  namespacePhase(namespace: string): 'missing' | 'active' | 'terminating' {
    const found = this.#objects.get(`/namespaces//${namespace}`);
    if (!found) return 'missing';
    return found.object.metadata['deletionTimestamp'] === undefined ? 'active' : 'terminating';
  }

  list(
    type: ResourceType,
    namespace: string | undefined,
    selector: readonly Requirement[],
    names?: { name?: string; namespace?: string },
  ): KubeObject[] {
    const prefix = `${type.group}/${type.plural}/${namespace === undefined ? '' : `${namespace}/`}`;
    const items: KubeObject[] = [];
    for (const [key, { object: obj }] of this.#objects) {
      if (!key.startsWith(prefix)) continue;
      const labels = (obj.metadata['labels'] ?? {}) as Record<string, string>;
      if (!matchesSelector(selector, labels)) continue;
      if (names?.name !== undefined && obj.metadata['name'] !== names.name) continue;
      if (names?.namespace !== undefined && obj.metadata['namespace'] !== names.namespace) continue;
      items.push(structuredClone(obj));
    }
    return items.sort((a, b) => String(a.metadata['name']).localeCompare(String(b.metadata['name'])));
  }

  create(type: ResourceType, namespace: string, body: unknown, dryRun = false): KubeObject {
    const obj = this.#validate(type, namespace, body);
    const m = obj.metadata;
    if (m['name'] === undefined && typeof m['generateName'] === 'string') {
      m['name'] = `${m['generateName']}${randomUUID().slice(0, 5)}`;
    }
    const name = String(m['name'] ?? '');
    if (!(type.clusterScoped ? DNS_LABEL : NAME).test(name))
      fail(422, `${type.kind} "${name}" is invalid: metadata.name: Invalid value: ${JSON.stringify(name)}`);
    if (m['resourceVersion'] !== undefined && m['resourceVersion'] !== '')
      fail(500, 'resourceVersion should not be set on objects to be created');
    if (!type.clusterScoped) {
      // The real server refuses content for a namespace that does not exist or is being deleted.
      const phase = this.namespacePhase(namespace);
      if (phase === 'missing') throw new ApiFailureError(notFound('namespaces', '', namespace));
      if (phase === 'terminating')
        fail(
          403,
          `${type.plural} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        );
    }
    const key = this.#key(type, namespace, name);
    if (this.#objects.has(key)) throw new ApiFailureError(alreadyExists(type.plural, type.group, name));
    m['uid'] = randomUUID();
    m['creationTimestamp'] = this.#clock
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    delete m['deletionTimestamp'];
    delete m['deletionGracePeriodSeconds'];
    if (type.generation) m['generation'] = 1;
    if (type.statusSubresource) delete obj['status'];
    if (type.kind === 'Namespace') {
      obj['spec'] = { finalizers: ['kubernetes'] };
      obj['status'] = { phase: 'Active' };
    }
    return this.#store(type, key, obj, dryRun);
  }

  /** PUT, or the result of a patch: the write fails with 409 when the body names a stale resourceVersion. */
  update(
    type: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    subresource: 'status' | undefined,
    dryRun = false,
    requireVersion = false,
  ): KubeObject {
    const key = this.#key(type, namespace, name);
    const current = this.#objects.get(key)?.object;
    if (!current) throw new ApiFailureError(notFound(type.plural, type.group, name));
    const next = this.#validate(type, namespace, body);
    const m = next.metadata;
    if (m['name'] !== undefined && m['name'] !== name)
      fail(400, `the name of the object (${String(m['name'])}) does not match the name on the URL (${name})`);
    const rv = m['resourceVersion'];
    // Custom resources allow no unconditional update (kubernetes/apiserver@24a394e pkg/registry/generic/registry/
    // store.go Update: NewInvalid on the resource, apimachinery@eed236c pkg/api/errors/errors.go NewInvalid).
    if (requireVersion && (rv === undefined || rv === '')) throw new ApiFailureError(unconditionalUpdate(type, name));
    if (rv !== undefined && rv !== '' && rv !== current.metadata['resourceVersion']) {
      throw new ApiFailureError(conflict(type.plural, type.group, name));
    }
    const uid = m['uid'];
    if (uid !== undefined && uid !== '' && uid !== current.metadata['uid']) {
      throw new ApiFailureError(
        uidConflict(type.plural, type.group, name, String(uid), String(current.metadata['uid'])),
      );
    }
    let result: KubeObject;
    if (subresource === 'status') {
      result = { ...structuredClone(current), status: next['status'] };
      if (next['status'] === undefined) delete result['status'];
    } else {
      const immutable = immutableChange(type.kind, name, current, next);
      if (immutable !== undefined) fail(422, immutable);
      result = next;
      if (type.statusSubresource) {
        if (current['status'] === undefined) delete result['status'];
        else result['status'] = structuredClone(current['status']);
      }
    }
    const rm = result.metadata;
    rm['name'] = name;
    if (type.clusterScoped) delete rm['namespace'];
    else rm['namespace'] = namespace;
    const deleting = current.metadata['deletionTimestamp'] !== undefined;
    if (deleting) {
      const before = new Set((current.metadata['finalizers'] as string[] | undefined) ?? []);
      const added = ((rm['finalizers'] as string[] | undefined) ?? []).filter((f) => !before.has(f));
      if (added.length > 0)
        fail(
          422,
          `${type.kind} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        );
    }
    // Only a DELETE sets these; clients cannot.
    for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds']) {
      if (current.metadata[field] === undefined) delete rm[field];
      else rm[field] = current.metadata[field];
    }
    if (type.kind === 'Namespace' && subresource !== 'status') result['status'] = structuredClone(current['status']);
    rm['uid'] = current.metadata['uid'];
    rm['creationTimestamp'] = current.metadata['creationTimestamp'];
    rm['resourceVersion'] = current.metadata['resourceVersion'];
    if (type.generation) {
      const changed = !isDeepStrictEqual(withoutVolatile(result, type), withoutVolatile(current, type));
      rm['generation'] = Number(current.metadata['generation'] ?? 1) + (changed ? 1 : 0);
    }
    // A write that changes nothing keeps the resourceVersion, as the real API server does.
    if (isDeepStrictEqual(result, current)) return structuredClone(current);
    const stored = this.#store(type, key, result, dryRun);
    // The last finalizer removed from an object being deleted: it goes (unless a Pod's grace period still runs).
    if (deleting && !dryRun && this.#finalized(stored)) this.remove(type, namespace, name);
    return stored;
  }

  #finalized(obj: KubeObject): boolean {
    const finalizers = (obj.metadata['finalizers'] as string[] | undefined) ?? [];
    const spec = obj['spec'] as { finalizers?: string[] } | undefined;
    return (
      finalizers.length === 0 &&
      Number(obj.metadata['deletionGracePeriodSeconds'] ?? 0) === 0 &&
      (obj['kind'] !== 'Namespace' || (spec?.finalizers ?? []).length === 0)
    );
  }

  /**
   * DELETE as the real registry does it: preconditions, then graceful deletion (Pods) and finalizers (`orphan` or
   * `foregroundDeletion` from the propagation policy, and the object's own); only an object with neither goes at once.
   */
  delete(
    type: ResourceType,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): { object: KubeObject; deleted: boolean } {
    const key = this.#key(type, namespace, name);
    const current = this.#objects.get(key)?.object;
    if (!current) throw new ApiFailureError(notFound(type.plural, type.group, name));
    if (options.resourceVersion !== undefined && options.resourceVersion !== current.metadata['resourceVersion']) {
      throw new ApiFailureError(conflict(type.plural, type.group, name));
    }
    if (options.uid !== undefined && options.uid !== current.metadata['uid']) {
      throw new ApiFailureError(
        uidConflict(type.plural, type.group, name, options.uid, String(current.metadata['uid'])),
      );
    }
    const policy =
      options.propagationPolicy ??
      (options.orphanDependents === true
        ? 'Orphan'
        : options.orphanDependents === false
          ? 'Background'
          : (type.defaultPropagation ?? 'Background'));
    if (!['Orphan', 'Background', 'Foreground'].includes(policy))
      fail(
        400,
        `DeleteOptions.propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    // Already being deleted: the request changes nothing (the object is returned as it is).
    if (current.metadata['deletionTimestamp'] !== undefined)
      return { object: structuredClone(current), deleted: false };
    const grace = type.kind === 'Pod' ? podGracePeriod(current, options.gracePeriodSeconds) : 0;
    const finalizers = [...((current.metadata['finalizers'] as string[] | undefined) ?? [])];
    const add = policy === 'Orphan' ? 'orphan' : policy === 'Foreground' ? 'foregroundDeletion' : undefined;
    if (add !== undefined && !finalizers.includes(add)) finalizers.push(add);
    if (type.kind !== 'Namespace' && finalizers.length === 0 && grace === 0) {
      if (!options.dryRun) this.remove(type, namespace, name);
      return { object: structuredClone(current), deleted: true };
    }
    const next = structuredClone(current);
    const m = next.metadata;
    if (finalizers.length > 0) m['finalizers'] = finalizers;
    m['deletionTimestamp'] = new Date(this.#clock.now().getTime() + grace * 1000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    m['deletionGracePeriodSeconds'] = grace;
    if (type.generation) m['generation'] = Number(m['generation'] ?? 1) + 1;
    if (type.kind === 'Namespace') next['status'] = { ...(next['status'] as object), phase: 'Terminating' };
    return { object: this.#store(type, key, next, options.dryRun === true), deleted: false };
  }

  /** Removes the object for good (the end of a deletion: no finalizer and no grace period left). */
  remove(type: ResourceType, namespace: string, name: string): void {
    const key = this.#key(type, namespace, name);
    const current = this.#objects.get(key)?.object;
    if (!current) return;
    this.#objects.delete(key);
    this.#revision++;
    this.#emit('DELETED', type, namespace, {
      ...current,
      metadata: { ...current.metadata, resourceVersion: String(this.#revision) },
    });
  }

  #store(type: ResourceType, key: string, obj: KubeObject, dryRun: boolean): KubeObject {
    if (!dryRun) {
      const previous = this.#objects.get(key)?.object;
      const namespace = type.clusterScoped ? '' : String(obj.metadata['namespace']);
      this.#revision++;
      obj.metadata['resourceVersion'] = String(this.#revision);
      this.#objects.set(key, { type, namespace, object: structuredClone(obj) });
      this.#emit(previous ? 'MODIFIED' : 'ADDED', type, namespace, obj, previous);
    }
    return structuredClone(obj);
  }

  #validate(type: ResourceType, namespace: string, body: unknown): KubeObject {
    if (!isPlainObject(body)) fail(400, `the body of the request was not a JSON object`);
    const obj = structuredClone(body) as Record<string, unknown>;
    if (obj['kind'] !== undefined && obj['kind'] !== type.kind)
      fail(400, `${String(obj['kind'])} in body does not match ${type.kind} of the URL`);
    if (obj['apiVersion'] !== undefined && obj['apiVersion'] !== apiVersionOf(type))
      fail(400, `apiVersion ${String(obj['apiVersion'])} in body does not match ${apiVersionOf(type)}`);
    obj['kind'] = type.kind;
    obj['apiVersion'] = apiVersionOf(type);
    const m = { ...meta(obj) };
    if (type.clusterScoped) delete m['namespace'];
    else {
      if (m['namespace'] !== undefined && m['namespace'] !== namespace) {
        fail(400, `the namespace of the provided object does not match the namespace sent on the request`);
      }
      m['namespace'] = namespace;
    }
    for (const field of ['labels', 'annotations']) {
      const v = m[field];
      if (v === undefined || v === null) continue;
      if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== 'string'))
        fail(422, `${type.kind} is invalid: metadata.${field}: values must be strings`);
    }
    obj['metadata'] = m;
    if (type.kind === 'ConfigMap' || type.kind === 'Secret') checkStringMap(type.kind, obj, 'data');
    if (type.kind === 'Secret') foldStringData(obj);
    return obj as KubeObject;
  }
}

function checkStringMap(kind: string, obj: Record<string, unknown>, field: string): void {
  const v = obj[field];
  if (v === undefined || v === null) return;
  if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== 'string'))
    fail(400, `${kind} ${field} values must be strings`);
}

// Secret.stringData is write-only: the server folds it into base64 `data`.
function foldStringData(obj: Record<string, unknown>): void {
  checkStringMap('Secret', obj, 'stringData');
  const sd = obj['stringData'] as Record<string, string> | undefined;
  if (!sd) return;
  const data = { ...((obj['data'] as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  obj['data'] = data;
  delete obj['stringData'];
}

// Pod graceful deletion: the request's period, else the spec's (default 30 s); a Pod never scheduled or already
// finished has nothing to stop and goes at once, as the real Pod registry decides.
function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod['status'] as { phase?: string } | undefined)?.phase;
  if (spec.nodeName === undefined || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
  return Math.max(0, requested ?? spec.terminationGracePeriodSeconds ?? 30);
}
