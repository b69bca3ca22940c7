import { z } from 'zod';
import { COMMIT_SHA, RELEASE_TAG, imagesSchema } from '../channel/channel-schema.ts';

const release = z.string().regex(RELEASE_TAG, 'expected vX.Y.Z');
const commit = z.string().regex(COMMIT_SHA, 'expected 40 lower-case hex digits');

/** `release-<tag>.json`: the Compose release lock. */
export const composeLockSchema = z.strictObject({ schemaVersion: z.literal(1), release, commit, images: imagesSchema });

/** `release-<tag>.chart.json`: the joint chart lock. */
export const chartLockSchema = z.strictObject({
  schemaVersion: z.literal(2),
  kind: z.literal('chart'),
  release,
  commit,
  chart: z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,52}$/, 'expected a chart name'),
    version: z
      .string()
      .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/, 'expected a SemVer chart version'),
    reference: z
      .string()
      .regex(/^oci:\/\/[a-z0-9][a-z0-9._\/:-]*@sha256:[0-9a-f]{64}$/, 'expected oci://<repository>@sha256:<64 hex>'),
  }),
  images: imagesSchema,
});

export type ComposeLock = z.output<typeof composeLockSchema>;
export type ChartLock = z.output<typeof chartLockSchema>;
export type ReleaseLock = ComposeLock | ChartLock;

/** Lock file name on deploy-state (`locks/`) or under HEPHAESTUS_RELEASE_URL/<tag>/. */
export function lockFileName(tag: string, kind: 'compose' | 'chart'): string {
  return kind === 'chart' ? `release-${tag}.chart.json` : `release-${tag}.json`;
}
