import { createHash } from 'node:crypto';
import { z } from 'zod';
import { COMMIT_SHA, RELEASE_TAG, imagesSchema } from '../../channel/channel-schema.ts';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import type { ChartLock } from '../../lock/lock-schema.ts';
import { ChartError } from './chart-error.ts';

/** The evidence manifest beside a joint lock (docs/formats/release-evidence.md), signed like it by the release identity. */
export const evidenceFileName = (tag: string) => `release-${tag}.evidence.json`;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');
const fileName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected a file name');

export const evidenceSchema = z.strictObject({
  schema: z.literal(1),
  kind: z.literal('release-evidence'),
  release: z.string().regex(RELEASE_TAG, 'expected vX.Y.Z'),
  commit: z.string().regex(COMMIT_SHA, 'expected 40 lower-case hex digits'),
  lock: z.strictObject({ file: fileName, sha256: sha256Hex }),
  chart: z.strictObject({
    reference: z.string().regex(/^oci:\/\/[a-z0-9][a-z0-9._\/:-]*@sha256:[0-9a-f]{64}$/, 'expected oci://…@sha256:…'),
    package: z.strictObject({ file: fileName, sha256: sha256Hex }),
    signature: z.strictObject({ file: fileName, sha256: sha256Hex }),
  }),
  images: imagesSchema,
});

export type ReleaseEvidence = z.output<typeof evidenceSchema>;

export const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The manifest of one chart release, from the exact bytes the workflow publishes; pure. */
export function releaseEvidence(input: {
  readonly lock: ChartLock;
  readonly lockFile: string;
  readonly lockBytes: Uint8Array;
  readonly packageFile: string;
  readonly packageBytes: Uint8Array;
  readonly signatureFile: string;
  readonly signatureBytes: Uint8Array;
}): ReleaseEvidence {
  return evidenceSchema.parse({
    schema: 1,
    kind: 'release-evidence',
    release: input.lock.release,
    commit: input.lock.commit,
    lock: { file: input.lockFile, sha256: sha256Of(input.lockBytes) },
    chart: {
      reference: input.lock.chart.reference,
      package: { file: input.packageFile, sha256: sha256Of(input.packageBytes) },
      signature: { file: input.signatureFile, sha256: sha256Of(input.signatureBytes) },
    },
    images: input.lock.images,
  });
}

/** Verified manifest bytes as a manifest; every bad field is named. */
export function parseEvidence(bytes: Uint8Array, file: string): ReleaseEvidence {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (cause) {
    throw new ChartError('evidence', `Cannot read ${file}: not JSON`, { cause, details: { file } });
  }
  const parsed = evidenceSchema.safeParse(json);
  if (!parsed.success)
    throw new ChartError(
      'evidence',
      `Cannot read ${file}:\n${describeZodIssues(file, json, parsed.error).join('\n')}`,
      {
        details: { file },
      },
    );
  return parsed.data;
}

const mismatch = (tag: string, what: string, manifest: string, actual: string) =>
  new ChartError(
    'evidence',
    `Cannot apply ${tag}: the evidence manifest names ${what} ${manifest}, the release has ${actual}`,
    {
      details: { what, manifest, actual },
    },
  );

/** The manifest against the verified joint lock (its exact bytes) and the chart's signature bundle; pure. */
export function checkEvidenceAgainstLock(
  evidence: ReleaseEvidence,
  tag: string,
  lock: ChartLock,
  lockBytes: Uint8Array,
  signatureBytes: Uint8Array,
): void {
  if (evidence.release !== tag) throw mismatch(tag, 'release', evidence.release, tag);
  if (evidence.commit !== lock.commit) throw mismatch(tag, 'commit', evidence.commit, lock.commit);
  if (evidence.lock.sha256 !== sha256Of(lockBytes))
    throw mismatch(tag, 'joint lock sha256', evidence.lock.sha256, sha256Of(lockBytes));
  if (evidence.chart.reference !== lock.chart.reference)
    throw mismatch(tag, 'chart', evidence.chart.reference, lock.chart.reference);
  if (evidence.chart.signature.sha256 !== sha256Of(signatureBytes))
    throw mismatch(tag, 'chart signature sha256', evidence.chart.signature.sha256, sha256Of(signatureBytes));
  const names = (m: Readonly<Record<string, string>>) => JSON.stringify(Object.entries(m).sort());
  if (names(evidence.images) !== names(lock.images))
    throw mismatch(tag, 'images', names(evidence.images), names(lock.images));
}

/** The pulled package against the manifest: the bytes Helm pulled are the ones the workflow packaged. */
export function checkEvidencePackage(evidence: ReleaseEvidence, tag: string, packageBytes: Uint8Array): void {
  if (evidence.chart.package.sha256 !== sha256Of(packageBytes))
    throw mismatch(tag, 'chart package sha256', evidence.chart.package.sha256, sha256Of(packageBytes));
}
