import { chartLockSchema } from '../../lock/lock-schema.ts';
import type { ChartLock } from '../../lock/lock-schema.ts';
import { serializeLock } from '../../lock/parse-lock.ts';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import { ChartError } from './chart-error.ts';
import type { ChartFiles } from './chart-archive.ts';
import { pushChart } from './oci-chart.ts';
import { packageChart } from './package-chart.ts';
import { chartBundleName } from './release-chart.ts';
import { evidenceFileName, releaseEvidence } from './release-evidence.ts';

export interface ChartReleaseInput {
  /** The chart folder's files at the release commit (`<name>/…`). */
  readonly files: ChartFiles;
  readonly tag: string;
  readonly commit: string;
  readonly images: Readonly<Record<string, string>>;
  /** Registry host (`ghcr.io`, `127.0.0.1:5000`) and repository (`o/charts/hephaestus`). */
  readonly registry: string;
  readonly repository: string;
  /** Signs exact bytes into a Sigstore bundle (JSON text) with the release identity. */
  readonly sign: (bytes: Buffer) => Promise<string> | string;
}

export interface ChartRelease {
  readonly lock: ChartLock;
  readonly reference: string;
  /** The packaged chart's exact bytes (what the registry serves at the reference). */
  readonly archive: Buffer;
  /** File name -> bytes, for deploy-state `locks/` or the release's assets. */
  readonly files: Readonly<Record<string, Buffer>>;
}

/**
 * The release side of a chart host: package the chart with the release's version, push it as a Helm OCI artifact,
 * sign the package's bytes, then write and sign the joint lock (source commit, chart digest, image pins) and the evidence
 * manifest over all of them.
 */
export async function publishChartRelease(input: ChartReleaseInput): Promise<ChartRelease> {
  const version = input.tag.replace(/^v/, '');
  const { archive, name, metadata } = packageChart(input.files, version);
  const reference = await pushChart(input.registry, input.repository, version, archive, metadata);
  const candidate: unknown = {
    schemaVersion: 2,
    kind: 'chart',
    release: input.tag,
    commit: input.commit,
    chart: { name, version, reference },
    images: input.images,
  };
  const parsed = chartLockSchema.safeParse(candidate);
  if (!parsed.success)
    throw new ChartError(
      'chart-mismatch',
      `Cannot write release-${input.tag}.chart.json:\n${describeZodIssues('lock', candidate, parsed.error).join('\n')}`,
      { exitCode: 2 },
    );
  const lockText = Buffer.from(serializeLock(parsed.data));
  const file = `release-${input.tag}.chart.json`;
  // In this order: the lock, the package, the evidence manifest over both.
  const lockBundle = Buffer.from(await input.sign(lockText));
  const signature = Buffer.from(await input.sign(archive));
  const evidence = Buffer.from(
    `${JSON.stringify(
      releaseEvidence({
        lock: parsed.data,
        lockFile: file,
        lockBytes: lockText,
        packageFile: `${name}-${version}.tgz`,
        packageBytes: archive,
        signatureFile: chartBundleName(input.tag),
        signatureBytes: signature,
      }),
      null,
      2,
    )}\n`,
  );
  return {
    lock: parsed.data,
    reference,
    archive,
    files: {
      [file]: lockText,
      [`${file}.sigstore.json`]: lockBundle,
      [chartBundleName(input.tag)]: signature,
      [evidenceFileName(input.tag)]: evidence,
      [`${evidenceFileName(input.tag)}.sigstore.json`]: Buffer.from(await input.sign(evidence)),
    },
  };
}
