// Application.spec.ignoreDifferences (jsonPointers) and the RespectIgnoreDifferences=true sync option.
import type { Application } from '../../../scripts/lib/argocd/index.ts';
import { applyJsonPatch } from '../kube-api-server/json-patch.ts';
import type { Manifest } from './manifest.ts';
import { groupOf } from './manifest.ts';

type Rule = NonNullable<Application['spec']['ignoreDifferences']>[number];

/** Rules the simulator cannot honour faithfully; the Application gets a ComparisonError instead. */
export function unsupportedRule(app: Application): string | undefined {
  const rule = (app.spec.ignoreDifferences ?? []).find(
    (r) => (r.jqPathExpressions?.length ?? 0) > 0 || (r.managedFieldsManagers?.length ?? 0) > 0,
  );
  return rule ? `ignoreDifferences for ${rule.kind}: only jsonPointers are simulated` : undefined;
}

export function ignoredPointers(app: Application, m: Manifest): string[] {
  const rules: Rule[] = (app.spec.ignoreDifferences ?? []).filter(
    (r) =>
      (r.group ?? '') === groupOf(m) &&
      r.kind === m.kind &&
      (r.name === undefined || r.name === m.metadata.name) &&
      (r.namespace === undefined || r.namespace === m.metadata.namespace),
  );
  return rules.flatMap((r) => r.jsonPointers ?? []);
}

function getPointer(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  let cur: unknown = doc;
  for (const token of pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, token)) return { found: false };
    cur = (cur as Record<string, unknown>)[token];
  }
  return { found: true, value: cur };
}

/** The object without the ignored fields (for comparing). */
export function withoutPointers<T>(doc: T, pointers: readonly string[]): T {
  let out = doc;
  for (const p of pointers) if (getPointer(out, p).found) out = applyJsonPatch(out, [{ op: 'remove', path: p }]) as T;
  return out;
}

/** RespectIgnoreDifferences=true: the ignored fields keep their live values when syncing. */
export function keepLiveValues(desired: Manifest, live: Manifest | undefined, pointers: readonly string[]): Manifest {
  if (!live) return desired;
  let out = desired;
  for (const p of pointers) {
    const current = getPointer(live, p);
    try {
      out = (
        current.found ? applyJsonPatch(out, [{ op: 'add', path: p, value: current.value }]) : withoutPointers(out, [p])
      ) as Manifest;
    } catch {
      // The parent of the field is not in the manifest: nothing of it would be applied anyway.
    }
  }
  return out;
}
