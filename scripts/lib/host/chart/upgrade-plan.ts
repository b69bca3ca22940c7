// The chart host's upgrade decision: complete a record Helm is ahead of, refuse an unsafe cutover, or upgrade. Pure.
import { isDeepStrictEqual } from 'node:util';
import { COMMIT_SHA } from '../../channel/channel-schema.ts';
import type { Target } from '../tick-context.ts';
import { ChartError } from './chart-error.ts';
import type { HelmMetadata, HelmStatus } from './helm-output.ts';

export type UpgradePlan =
  /** Helm already runs exactly this target: only the record is missing. */
  | { readonly kind: 'already-deployed' }
  /** A cutover (a new major version) runs one server and no worker, without --rollback-on-failure. */
  | { readonly kind: 'upgrade'; readonly cutover: boolean };

export interface UpgradeInput {
  /** `helm status` now (status and user-supplied values); undefined when Helm knows no such release. */
  readonly status: HelmStatus | undefined;
  /** `helm get metadata` now (the installed chart's version): Helm 4's status carries no chart. */
  readonly metadata: HelmMetadata | undefined;
  /** The target the applied record names (its release, else its commit); undefined without a record. */
  readonly recorded: string | undefined;
  readonly target: Target;
  /** The verified chart's version. */
  readonly chartVersion: string;
  /** Each image variable of the chart and its verified pin. */
  readonly pins: Readonly<Record<string, string>>;
  /** HEPHAESTUS_CHART_RELEASE, for messages. */
  readonly release: string;
}

const major = (version: string | undefined) =>
  // Stryker disable next-line ConditionalExpression: exec(undefined) reads "undefined", which gives NaN, and NaN is never a cutover either
  version === undefined ? undefined : Number(/^v?(\d+)\./.exec(version)?.[1] ?? Number.NaN);

/** Helm already deployed exactly this target (identity and pins): a cutover whose record was not written yet. */
function deployedTarget({ status, metadata, target, chartVersion, pins }: UpgradeInput): boolean {
  if (status === undefined || status.info.status !== 'deployed') return false;
  const config = (status.config ?? {}) as { release?: unknown; images?: unknown };
  return (
    metadata !== undefined &&
    metadata.revision === status.version &&
    metadata.version === chartVersion &&
    isDeepStrictEqual(config.release, { name: target.name, commit: target.commit }) &&
    isDeepStrictEqual(config.images, pins)
  );
}

function replicas(config: Record<string, unknown> | undefined, role: 'server' | 'worker'): number | undefined {
  const value = (config?.[role] as { replicas?: unknown } | undefined)?.replicas;
  return typeof value === 'number' ? value : undefined;
}

/**
 * Across a major version (a cutover) the installed values must run no server and no worker; a release never follows
 * a commit chart by itself. Throws ChartError('cutover', exit 3) for both. The shell still waits for writer workloads.
 */
export function planUpgrade(input: UpgradeInput): UpgradePlan {
  const { status, metadata, recorded, target, chartVersion, release } = input;
  // Helm already runs exactly this target and the record names another one: Helm finished (a cutover, or the
  // operator's manual apply) before the record was written. Complete the record; never run the migration again.
  if (recorded !== undefined && recorded !== target.name && deployedTarget(input)) return { kind: 'already-deployed' };
  const running = ((status?.config ?? {}) as { release?: { name?: unknown } }).release?.name;
  // Stryker disable next-line ConditionalExpression: RegExp.test() of a non-string (a number, undefined) never reads as a 40-hex-digit commit
  if (target.release !== undefined && typeof running === 'string' && COMMIT_SHA.test(running)) {
    throw new ChartError(
      'cutover',
      `Cannot move release "${release}" from commit ${running} to ${target.release} by itself: a commit chart has no release version; apply the verified target by hand first (docs/chart-host.md "From a commit channel to a release")`,
      { exitCode: 3, details: { running } },
    );
  }
  const targetMajor = major(target.release);
  const installedMajor = major(metadata?.version);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: `>` with an undefined side is false already; the checks say it
  const cutover = targetMajor !== undefined && installedMajor !== undefined && targetMajor > installedMajor;
  if (cutover) {
    // Stryker disable next-line OptionalChaining: a cutover has an installed major version, so status is defined
    const server = replicas(status?.config, 'server');
    // Stryker disable next-line OptionalChaining: status is defined in a cutover (it has an installed major version)
    const worker = replicas(status?.config, 'worker');
    if (server !== 0 || worker !== 0) {
      throw new ChartError(
        'cutover',
        // Stryker disable next-line OptionalChaining: status is defined in a cutover (it has an installed major version)
        `Cannot cut over release "${release}" from ${metadata?.version} to ${chartVersion}: the installed values run ${server ?? 'default'} server and ${worker ?? 'default'} worker replicas; stop them with the source chart first (docs/chart-host.md)`,
        { exitCode: 3, details: { server, worker } },
      );
    }
  }
  return { kind: 'upgrade', cutover };
}
