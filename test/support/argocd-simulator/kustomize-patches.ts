// kustomize `patches`: a strategic merge patch or a JSON 6902 patch, applied to the resources its target selects.
import { parse } from 'yaml';
import { applyJsonPatch } from '../kube-api-server/json-patch.ts';
import { applyMergePatch, isPlainObject } from '../kube-api-server/merge-patch.ts';
import { matchesSelector, parseLabelSelector } from '../kube-api-server/label-selector.ts';
import type { Manifest } from './manifest.ts';
import { groupOf } from './manifest.ts';

export interface PatchTarget {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly annotationSelector?: string;
}

export class KustomizeError extends Error {}

// kustomize treats target name and namespace as anchored regular expressions.
function regexMatch(pattern: string | undefined, value: string | undefined): boolean {
  if (pattern === undefined) return true;
  return new RegExp(`^(?:${pattern})$`).test(value ?? '');
}

export function selects(target: PatchTarget, m: Manifest): boolean {
  const [group, version] = m.apiVersion.includes('/') ? (m.apiVersion.split('/') as [string, string]) : ['', m.apiVersion];
  if (target.group !== undefined && target.group !== group) return false;
  if (target.version !== undefined && target.version !== version) return false;
  if (target.kind !== undefined && target.kind !== m.kind) return false;
  if (!regexMatch(target.name, m.metadata.name)) return false;
  if (!regexMatch(target.namespace, m.metadata.namespace)) return false;
  if (target.labelSelector && !matchesSelector(parseLabelSelector(target.labelSelector), m.metadata.labels ?? {})) return false;
  if (target.annotationSelector && !matchesSelector(parseLabelSelector(target.annotationSelector), m.metadata.annotations ?? {})) return false;
  return true;
}

/**
 * Strategic merge for built-in kinds merges lists of named objects (containers, env, volumes) by `name`;
 * custom resources get JSON merge patch semantics, as kustomize does without their schema.
 */
function strategicMerge(target: unknown, patch: unknown, byName: boolean): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    if (value === null) delete out[key];
    else if (byName && Array.isArray(value) && Array.isArray(current) && [...value, ...current].every((i) => isPlainObject(i) && typeof i['name'] === 'string')) {
      const merged = current.map((c) => {
        const p = value.find((v) => v.name === c.name);
        return p ? strategicMerge(c, p, true) : c;
      });
      for (const v of value) if (!current.some((c) => c.name === v.name)) merged.push(structuredClone(v));
      out[key] = merged;
    } else out[key] = byName ? strategicMerge(current, value, true) : applyMergePatch(current, value);
  }
  return out;
}

export function applyPatch(manifests: Manifest[], text: string, target: PatchTarget | undefined, origin: string): Manifest[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KustomizeError(`${origin}: patch is not YAML: ${(error as Error).message}`);
  }
  if (Array.isArray(doc)) {
    if (!target) throw new KustomizeError(`${origin}: a JSON 6902 patch needs a target`);
    return manifests.map((m) => {
      if (!selects(target, m)) return m;
      try {
        return applyJsonPatch(m, doc) as Manifest;
      } catch (error) {
        throw new KustomizeError(`${origin}: JSON patch failed on ${m.kind}/${m.metadata.name}: ${(error as Error).message}`);
      }
    });
  }
  if (!isPlainObject(doc)) throw new KustomizeError(`${origin}: patch must be a YAML object or a list of JSON 6902 operations`);
  const meta = (doc['metadata'] ?? {}) as { name?: string; namespace?: string };
  const effective: PatchTarget = target ?? { kind: doc['kind'] as string | undefined, name: meta.name };
  let hit = false;
  const out = manifests.map((m) => {
    if (!selects(effective, m)) return m;
    hit = true;
    // The patch's own identity fields do not rename the target.
    const { apiVersion: _a, kind: _k, metadata: pm, ...body } = doc as Record<string, unknown>;
    const { name: _n, namespace: _ns, ...metaRest } = (pm ?? {}) as Record<string, unknown>;
    const patch = Object.keys(metaRest).length > 0 ? { ...body, metadata: metaRest } : body;
    const group = groupOf(m);
    return strategicMerge(m, patch, !group.includes('.') || group.endsWith('.k8s.io')) as Manifest;
  });
  if (!target && !hit) throw new KustomizeError(`${origin}: no resource matches the patch for ${String(doc['kind'])}/${String(meta.name)}`);
  return out;
}
