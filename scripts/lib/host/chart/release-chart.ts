import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChartLock } from '../../lock/lock-schema.ts';
import { lockFileName } from '../../lock/lock-schema.ts';
import { readFileBounded } from '../../signing/read-bounded.ts';
import { VerificationError } from '../../signing/signing-error.ts';
import { verifyBundle } from '../../signing/verify-bundle.ts';
import type { TrustPolicy } from '../../signing/trust-policy.ts';
import { releaseAssets, verifiedReleaseLock } from '../release-lock.ts';
import type { LockSource } from '../release-lock.ts';
import { readChartArchive } from './chart-archive.ts';
import { ChartError } from './chart-error.ts';
import { summarizeChart } from './chart-metadata.ts';
import type { ChartSummary } from './chart-metadata.ts';
import { checkChartPins } from './chart-values.ts';
import type { Helm } from './helm-port.ts';
import { parseOciReference } from './oci-chart.ts';
import { checkEvidenceAgainstLock, checkEvidencePackage, evidenceFileName, parseEvidence } from './release-evidence.ts';

/** The chart's signature beside its lock: a Sigstore bundle over the exact bytes of the packaged `.tgz`. */
export const chartBundleName = (tag: string) => `release-${tag}.chart.tgz.sigstore.json`;

export interface VerifiedReleaseChart {
  readonly lock: ChartLock;
  /** `<chartDir>/<name>-<version>.tgz`, the verified package. */
  readonly archive: string;
  readonly summary: ChartSummary;
}

/**
 * A release channel's chart, verified before anything of the release runs: the joint lock (release identity, tag
 * commit), its evidence manifest (release identity; the lock's bytes, chart, signature and pins), then `helm pull` by the lock's digest, whose reported digest must match; the package's own signature; its
 * Chart.yaml (name, version = release) and its image keys against the lock's pins. Only then is the package moved
 * into `chartDir`; a refused one leaves nothing there.
 */
export async function verifiedReleaseChart(options: {
  readonly source: LockSource;
  readonly tag: string;
  readonly tagCommit: string;
  readonly policy: TrustPolicy;
  readonly helm: Helm;
  readonly chartDir: string;
  /** A local copy of the evidence manifest (prepare-release-chart's fifth argument); else the published one. */
  readonly evidence?: Buffer;
}): Promise<VerifiedReleaseChart> {
  const { source, tag, tagCommit, policy, helm, chartDir } = options;
  const lock = await verifiedReleaseLock(source, tag, tagCommit, 'chart', policy);
  if (!('kind' in lock))
    throw new ChartError('chart-mismatch', `Cannot apply ${tag}: release-${tag}.chart.json is not a joint chart lock`);
  const { name, version, reference } = lock.chart;
  if (version !== tag.replace(/^v/, ''))
    throw new ChartError(
      'chart-mismatch',
      `Cannot apply ${tag}: the joint lock names chart version "${version}", not the release's "${tag.replace(/^v/, '')}"`,
      { details: { version } },
    );
  const evidenceFile = evidenceFileName(tag);
  const [bundle, lockBytes, evidenceBundle, published] = await releaseAssets(source, tag, [
    chartBundleName(tag),
    lockFileName(tag, 'chart'),
    `${evidenceFile}.sigstore.json`,
    ...(options.evidence === undefined ? [evidenceFile] : []),
  ]);
  const evidenceBytes = options.evidence ?? (published as Buffer);
  try {
    verifyBundle({ artifact: evidenceBytes, bundle: evidenceBundle as Buffer, label: evidenceFile }, policy);
  } catch (cause) {
    if (cause instanceof VerificationError)
      throw new ChartError('evidence', `Cannot apply ${tag}: ${cause.message}`, { cause });
    throw cause;
  }
  const evidence = parseEvidence(evidenceBytes, evidenceFile);
  checkEvidenceAgainstLock(evidence, tag, lock, lockBytes as Buffer, bundle as Buffer);
  await mkdir(chartDir, { recursive: true, mode: 0o750 });
  const scratch = await mkdtemp(join(chartDir, '.pull-'));
  try {
    const reported = await helm.pull(reference, scratch);
    const expected = parseOciReference(reference).digest;
    if (reported !== expected)
      throw new ChartError(
        'chart-mismatch',
        `Cannot apply ${tag}: helm pulled digest ${reported}, the joint lock names ${expected}`,
        { details: { reported, expected } },
      );
    // Whatever name Helm gave the package, it is the one file the pull wrote.
    const pulled = (await readdir(scratch)).filter((f) => f.endsWith('.tgz'));
    if (pulled.length !== 1)
      throw new ChartError('pull-failed', `Cannot apply ${tag}: helm pull wrote ${pulled.length} chart packages`);
    const file = join(scratch, pulled[0] ?? '');
    const bytes = await readFileBounded(file).catch((cause: Error) => {
      throw new ChartError('pull-failed', `Cannot read the pulled chart ${pulled[0]}: ${cause.message}`, { cause });
    });
    try {
      verifyBundle({ artifact: bytes, bundle: bundle as Buffer, label: `chart ${name}-${version}.tgz` }, policy);
    } catch (cause) {
      if (cause instanceof VerificationError)
        throw new ChartError('chart-signature', `Cannot apply ${tag}: ${cause.message}`, { cause });
      throw cause;
    }
    checkEvidencePackage(evidence, tag, bytes);
    const summary = summarizeChart(readChartArchive(bytes, reference), reference);
    if (summary.metadata.name !== name || summary.metadata.version !== version) {
      throw new ChartError(
        'chart-mismatch',
        `Cannot apply ${tag}: the chart's Chart.yaml says ${summary.metadata.name} ${summary.metadata.version}, the joint lock ${name} ${version}`,
      );
    }
    checkChartPins(summary.imageVariables, lock.images, tag);
    const archive = join(chartDir, `${name}-${version}.tgz`);
    await rename(file, archive);
    return { lock, archive, summary };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
