// Fields the real API server refuses to change after creation (apps/v1 and batch/v1 validation).
import { isDeepStrictEqual } from 'node:util';

const IMMUTABLE: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['selector'],
  Job: ['selector', 'template', 'completionMode'],
  StatefulSet: ['selector', 'serviceName', 'volumeClaimTemplates', 'podManagementPolicy'],
};

/** The message of the real 422, or undefined when the update is allowed. */
export function immutableChange(
  kind: string,
  name: string,
  current: Record<string, unknown>,
  next: Record<string, unknown>,
): string | undefined {
  const fields = IMMUTABLE[kind] ?? [];
  const before = (current['spec'] ?? {}) as Record<string, unknown>;
  const after = (next['spec'] ?? {}) as Record<string, unknown>;
  const changed = fields.find((f) => !isDeepStrictEqual(before[f], after[f]));
  if (changed === undefined) return undefined;
  const group = kind === 'Job' ? 'batch' : 'apps';
  return `${kind}.${group} "${name}" is invalid: spec.${changed}: Invalid value: ${JSON.stringify(after[changed] ?? null).slice(0, 120)}: field is immutable`;
}
