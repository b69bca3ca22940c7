// What Helm 4 prints with `-o json`, as its Go types encode it (helm/helm@e9b85e4): every schema here is held against
// Helm's own golden files in test/support/contracts/helm/.
import { z } from 'zod';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import type { ExecResult } from '../../ports/exec.ts';
import { ChartError } from './chart-error.ts';

/** pkg/release/common/status.go: every status a revision can have. */
export const RELEASE_STATUSES = [
  'unknown',
  'deployed',
  'uninstalled',
  'superseded',
  'failed',
  'uninstalling',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
] as const;

/**
 * One row of `helm history -o json` (pkg/cmd/history.go releaseInfo): `updated` is omitted when zero,
 * `rollback_revision` unless the revision is a rollback; `app_version` and `description` are always there.
 */
export const historyRowSchema = z.object({
  revision: z.number().int().positive(),
  updated: z.string().optional(),
  status: z.enum(RELEASE_STATUSES),
  chart: z.string(),
  app_version: z.string(),
  rollback_revision: z.number().int().positive().optional(),
  description: z.string(),
});
export type HistoryRow = z.output<typeof historyRowSchema>;

/**
 * `helm status -o json` (pkg/cmd/status.go): the last revision's release with `chart` removed (`rel.Chart = nil`);
 * `config` holds the user-supplied values and, like `version`, is omitted when empty (pkg/release/v1/release.go).
 */
export const statusSchema = z.object({
  name: z.string(),
  info: z.object({ status: z.enum(RELEASE_STATUSES), description: z.string().optional() }),
  config: z.record(z.string(), z.unknown()).optional(),
  version: z.number().int().positive().optional(),
  namespace: z.string(),
});
export type HelmStatus = z.output<typeof statusSchema>;

/** `helm get metadata -o json` (pkg/action/get_metadata.go Metadata): the chart's name and version of the last revision. */
export const metadataSchema = z.object({
  name: z.string(),
  chart: z.string(),
  version: z.string(),
  appVersion: z.string(),
  namespace: z.string(),
  revision: z.number().int().positive(),
  status: z.enum(RELEASE_STATUSES),
  deployedAt: z.string(),
});
export type HelmMetadata = z.output<typeof metadataSchema>;

export function parseHelmJson<T>(schema: z.ZodType<T>, r: ExecResult, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(r.stdout.toString('utf8'));
  } catch (cause) {
    throw new ChartError('helm-output', `Cannot read ${what}: not JSON`, { cause });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new ChartError(
      'helm-output',
      `Cannot read ${what}:\n${describeZodIssues(what, json, parsed.error).join('\n')}`,
    );
  return parsed.data;
}
