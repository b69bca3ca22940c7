// Strategic merge patch for built-in kinds, as apimachinery's strategicpatch applies it: lists with a
// `patchMergeKey` in the Kubernetes types merge item by item, `finalizers` merge as a set, other lists replace;
// directives `$patch: replace|delete`, `$retainKeys`, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`.
import { isPlainObject } from './merge-patch.ts';

// patchMergeKey of the list fields of core/v1, apps/v1 and batch/v1 types (k8s.io/api struct tags).
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  conditions: 'type',
  ownerReferences: 'uid',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
};
// Lists of strings with patchStrategy "merge" (a set union).
const PRIMITIVE_MERGE = new Set(['finalizers']);

type Json = unknown;

function mergeKeyOf(path: readonly string[], field: string): string | undefined {
  // A container's ports merge by containerPort, a Service's by port.
  if (field === 'ports')
    return path.some((p) => p === 'containers' || p === 'initContainers' || p === 'ephemeralContainers')
      ? 'containerPort'
      : 'port';
  return MERGE_KEYS[field];
}

const withoutDirectives = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !k.startsWith('$')));

/** The patched object; `undefined` when the patch deletes it (`$patch: delete`). */
export function applyStrategicMergePatch(original: Json, patch: Json, path: readonly string[] = []): Json {
  if (!isPlainObject(patch)) return structuredClone(patch);
  if (patch['$patch'] === 'delete') return undefined;
  if (patch['$patch'] === 'replace') return withoutDirectives(structuredClone(patch));
  const out: Record<string, unknown> = isPlainObject(original) ? structuredClone(original) : {};
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key];
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const mergeKey = mergeKeyOf(path, key);
    if (Array.isArray(value) && mergeKey !== undefined) out[key] = mergeList(out[key], value, mergeKey, [...path, key]);
    else if (Array.isArray(value) && PRIMITIVE_MERGE.has(key))
      out[key] = [...new Set([...(Array.isArray(out[key]) ? out[key] : []), ...value])];
    else if (isPlainObject(value)) {
      const merged = applyStrategicMergePatch(out[key], value, [...path, key]);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else out[key] = structuredClone(value);
  }
  for (const [key, value] of Object.entries(patch)) {
    const field = key.slice(key.indexOf('/') + 1);
    if (key.startsWith('$deleteFromPrimitiveList/') && Array.isArray(out[field]) && Array.isArray(value))
      out[field] = (out[field] as unknown[]).filter((v) => !value.includes(v));
    if (key.startsWith('$setElementOrder/') && Array.isArray(out[field]) && Array.isArray(value))
      out[field] = reorder(out[field] as unknown[], value, mergeKeyOf(path, field));
  }
  return out;
}

function mergeList(original: unknown, patch: readonly unknown[], mergeKey: string, path: readonly string[]): unknown[] {
  if (patch.some((item) => isPlainObject(item) && item['$patch'] === 'replace')) {
    return patch
      .filter((item) => !(isPlainObject(item) && item['$patch'] === 'replace'))
      .map((item) => (isPlainObject(item) ? withoutDirectives(item) : item));
  }
  const out = Array.isArray(original) ? structuredClone(original) : [];
  for (const item of patch) {
    if (!isPlainObject(item)) {
      out.push(structuredClone(item));
      continue;
    }
    const index = out.findIndex((o) => isPlainObject(o) && o[mergeKey] === item[mergeKey]);
    if (item['$patch'] === 'delete') {
      if (index >= 0) out.splice(index, 1);
    } else if (index >= 0) out[index] = applyStrategicMergePatch(out[index], item, path);
    else out.push(applyStrategicMergePatch(undefined, item, path));
  }
  return out;
}

// `$setElementOrder`: the listed items first, in that order; the rest keep their relative order after them.
function reorder(items: readonly unknown[], order: readonly unknown[], mergeKey: string | undefined): unknown[] {
  const id = (v: unknown) => (mergeKey !== undefined && isPlainObject(v) ? v[mergeKey] : v);
  const ids = order.map(id);
  const listed = ids.map((i) => items.find((v) => id(v) === i)).filter((v) => v !== undefined);
  return [...listed, ...items.filter((v) => !ids.includes(id(v)))];
}
