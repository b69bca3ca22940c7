// In-memory object store with the API server's write semantics: resourceVersion, uid, generation, CAS, status subresource.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../../scripts/lib/ports/clock.ts';
import { apiVersionOf } from './resources.ts';
import type { ResourceType } from './resources.ts';
import { ApiFailureError, alreadyExists, conflict, failure, notFound } from './status.ts';
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
}



const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

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
  readonly #objects = new Map<string, KubeObject>();
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

  #emit(type: WatchEvent['type'], resource: ResourceType, namespace: string, object: KubeObject): void {
    const event: WatchEvent = { type, resource, namespace, revision: this.#revision, object: structuredClone(object) };
    this.#history.push(event);
    if (this.#history.length > this.#historySize) this.#dropped = this.#history.shift()?.revision ?? this.#dropped;
    for (const listener of this.#listeners) listener(event);
  }

  get(type: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.#objects.get(this.#key(type, namespace, name));
    if (!found) throw new ApiFailureError(notFound(type.plural, type.group, name));
    return structuredClone(found);
  }

  list(type: ResourceType, namespace: string | undefined, selector: readonly Requirement[], names?: { name?: string; namespace?: string }): KubeObject[] {
    const prefix = `${type.group}/${type.plural}/${namespace === undefined ? '' : `${namespace}/`}`;
    const items: KubeObject[] = [];
    for (const [key, obj] of this.#objects) {
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
    if (!NAME.test(name)) fail(422, `${type.kind} "${name}" is invalid: metadata.name: Invalid value: ${JSON.stringify(name)}`);
    if (m['resourceVersion'] !== undefined && m['resourceVersion'] !== '') fail(500, 'resourceVersion should not be set on objects to be created');
    const key = this.#key(type, namespace, name);
    if (this.#objects.has(key)) throw new ApiFailureError(alreadyExists(type.plural, type.group, name));
    m['uid'] = randomUUID();
    m['creationTimestamp'] = this.#clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (type.generation) m['generation'] = 1;
    if (type.statusSubresource) delete obj['status'];
    return this.#store(type, key, obj, dryRun);
  }

  /** PUT, or the result of a patch: the write fails with 409 when the body names a stale resourceVersion. */
  update(type: ResourceType, namespace: string, name: string, body: unknown, subresource: 'status' | undefined, dryRun = false): KubeObject {
    const key = this.#key(type, namespace, name);
    const current = this.#objects.get(key);
    if (!current) throw new ApiFailureError(notFound(type.plural, type.group, name));
    const next = this.#validate(type, namespace, body);
    const m = next.metadata;
    if (m['name'] !== undefined && m['name'] !== name) fail(400, `the name of the object (${String(m['name'])}) does not match the name on the URL (${name})`);
    const rv = m['resourceVersion'];
    if (rv !== undefined && rv !== '' && rv !== current.metadata['resourceVersion']) {
      throw new ApiFailureError(conflict(type.plural, type.group, name));
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
    rm['namespace'] = namespace;
    rm['uid'] = current.metadata['uid'];
    rm['creationTimestamp'] = current.metadata['creationTimestamp'];
    rm['resourceVersion'] = current.metadata['resourceVersion'];
    if (type.generation) {
      const changed = !isDeepStrictEqual(withoutVolatile(result, type), withoutVolatile(current, type));
      rm['generation'] = Number(current.metadata['generation'] ?? 1) + (changed ? 1 : 0);
    }
    // A write that changes nothing keeps the resourceVersion, as the real API server does.
    if (isDeepStrictEqual(result, current)) return structuredClone(current);
    return this.#store(type, key, result, dryRun);
  }

  delete(type: ResourceType, namespace: string, name: string, preconditionVersion?: string): KubeObject {
    const key = this.#key(type, namespace, name);
    const current = this.#objects.get(key);
    if (!current) throw new ApiFailureError(notFound(type.plural, type.group, name));
    if (preconditionVersion !== undefined && preconditionVersion !== current.metadata['resourceVersion']) {
      throw new ApiFailureError(conflict(type.plural, type.group, name));
    }
    this.#objects.delete(key);
    this.#revision++;
    this.#emit('DELETED', type, namespace, { ...current, metadata: { ...current.metadata, resourceVersion: String(this.#revision) } });
    return structuredClone(current);
  }

  #store(type: ResourceType, key: string, obj: KubeObject, dryRun: boolean): KubeObject {
    if (!dryRun) {
      const existed = this.#objects.has(key);
      this.#revision++;
      obj.metadata['resourceVersion'] = String(this.#revision);
      this.#objects.set(key, structuredClone(obj));
      this.#emit(existed ? 'MODIFIED' : 'ADDED', type, String(obj.metadata['namespace']), obj);
    }
    return structuredClone(obj);
  }

  #validate(type: ResourceType, namespace: string, body: unknown): KubeObject {
    if (!isPlainObject(body)) fail(400, `the body of the request was not a JSON object`);
    const obj = structuredClone(body) as Record<string, unknown>;
    if (obj['kind'] !== undefined && obj['kind'] !== type.kind) fail(400, `${String(obj['kind'])} in body does not match ${type.kind} of the URL`);
    if (obj['apiVersion'] !== undefined && obj['apiVersion'] !== apiVersionOf(type)) fail(400, `apiVersion ${String(obj['apiVersion'])} in body does not match ${apiVersionOf(type)}`);
    obj['kind'] = type.kind;
    obj['apiVersion'] = apiVersionOf(type);
    const m = { ...meta(obj) };
    if (m['namespace'] !== undefined && m['namespace'] !== namespace) {
      fail(400, `the namespace of the provided object does not match the namespace sent on the request`);
    }
    m['namespace'] = namespace;
    for (const field of ['labels', 'annotations']) {
      const v = m[field];
      if (v === undefined || v === null) continue;
      if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== 'string')) fail(422, `${type.kind} is invalid: metadata.${field}: values must be strings`);
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
  if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== 'string')) fail(400, `${kind} ${field} values must be strings`);
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
