import { z } from 'zod';
import type { Exec, ExecResult } from '../../ports/exec.ts';
import { ChartError } from './chart-error.ts';
import { historyRowSchema, metadataSchema, parseHelmJson, statusSchema } from './helm-output.ts';
import type { HelmMetadata, HelmStatus, HistoryRow } from './helm-output.ts';

// Status and history reads have a two-minute limit (the seed's "Settings for the chart").
export const READ_TIMEOUT_MS = 2 * 60 * 1000;
export const PULL_TIMEOUT_MS = 10 * 60 * 1000;

export interface Helm {
  /** Every revision, oldest first; undefined when Helm knows no such release. */
  history(): Promise<HistoryRow[] | undefined>;
  /** `helm status`: the last revision's status and user-supplied values (Helm 4 prints no chart there). */
  status(): Promise<HelmStatus | undefined>;
  /** `helm get metadata`: the last revision's chart name and version. */
  metadata(): Promise<HelmMetadata | undefined>;
  upgradeInstall(
    chart: string,
    values: readonly string[],
    options: { readonly rollbackOnFailure: boolean; readonly set?: readonly string[] },
  ): Promise<void>;
  rollback(revision: number): Promise<void>;
  /** `helm pull <ref> --destination <dir>`: the digest Helm reports. */
  pull(reference: string, destination: string): Promise<string>;
  /** The exact command an operator runs to clear a release Helm never finished. */
  readonly uninstallCommand: string;
}

export interface HelmSettings {
  readonly binary: string;
  readonly release: string;
  readonly namespace: string;
  readonly waitTimeoutSeconds: number;
  readonly kubeconfig: string | undefined;
}

const tail = (r: ExecResult) => r.stderr.trim().split('\n').slice(-4).join(' / ');
const notFound = (r: ExecResult) => /release: not found/.test(r.stderr);

/** The Helm port: argument arrays only, every call with a deadline (reads 2 min; writes derived from HEPHAESTUS_WAIT_TIMEOUT). */
export function helmPort(run: Exec, settings: HelmSettings): Helm {
  const { binary, release, namespace } = settings;
  const env = settings.kubeconfig === undefined ? process.env : { ...process.env, KUBECONFIG: settings.kubeconfig };
  const ns = ['--namespace', namespace];
  const timeout = `${settings.waitTimeoutSeconds}s`;
  // An upgrade with --rollback-on-failure may wait twice (the upgrade, then the rollback): allow both and a margin.
  const writeDeadline = (2 * settings.waitTimeoutSeconds + 120) * 1000;
  const call = (args: readonly string[], timeoutMs: number) =>
    run(binary, args, { env, timeoutMs }).catch((cause: Error) => {
      throw new ChartError('helm-failed', `Cannot run ${binary} ${args[0] ?? ''}: ${cause.message}`, {
        cause,
        details: { args },
      });
    });
  /** A read within two minutes: undefined when Helm knows no such release ("release: not found"). */
  async function read<T>(args: readonly string[], what: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const r = await call(args, READ_TIMEOUT_MS);
    if (r.code !== 0 && notFound(r)) return undefined;
    if (r.code !== 0)
      throw new ChartError(
        'helm-failed',
        `Cannot read the ${what} of release "${release}": helm exited ${r.code}: ${tail(r)}`,
      );
    return parseHelmJson(schema, r, `helm ${args.slice(0, args.indexOf(release)).join(' ')} ${release}`);
  }
  return {
    uninstallCommand: `${binary} uninstall ${release} --namespace ${namespace}`,
    history: async () => {
      const rows = await read(
        ['history', release, ...ns, '--output', 'json', '--max', '256'],
        'history',
        z.array(historyRowSchema),
      );
      return rows === undefined ? undefined : [...rows].sort((a, b) => a.revision - b.revision);
    },
    status: () => read(['status', release, ...ns, '--output', 'json'], 'status', statusSchema),
    metadata: () => read(['get', 'metadata', release, ...ns, '--output', 'json'], 'metadata', metadataSchema),
    upgradeInstall: async (chart, values, options) => {
      const args = [
        'upgrade',
        '--install',
        release,
        chart,
        ...ns,
        ...values.flatMap((v) => ['--values', v]),
        ...(options.set ?? []).flatMap((s) => ['--set', s]),
      ];
      if (options.rollbackOnFailure) args.push('--rollback-on-failure');
      args.push('--wait=watcher', '--wait-for-jobs', '--timeout', timeout);
      const r = await call(args, writeDeadline);
      if (r.code !== 0)
        throw new ChartError('helm-failed', `Cannot upgrade release "${release}": helm exited ${r.code}: ${tail(r)}`, {
          details: { code: r.code },
        });
    },
    rollback: async (revision) => {
      const r = await call(
        ['rollback', release, String(revision), ...ns, '--wait', '--timeout', timeout],
        writeDeadline,
      );
      if (r.code !== 0)
        throw new ChartError(
          'helm-failed',
          `Cannot roll release "${release}" back to revision ${revision}: helm exited ${r.code}: ${tail(r)}`,
        );
    },
    pull: async (reference, destination) => {
      const r = await call(['pull', reference, '--destination', destination], PULL_TIMEOUT_MS);
      if (r.code !== 0)
        throw new ChartError('pull-failed', `Cannot pull chart "${reference}": helm exited ${r.code}: ${tail(r)}`);
      const digest = /^Digest: (sha256:[0-9a-f]{64})$/m.exec(r.stdout.toString('utf8'))?.[1];
      if (digest === undefined)
        throw new ChartError(
          'helm-output',
          `Cannot pull chart "${reference}": helm reported no "Digest: sha256:…" line`,
        );
      return digest;
    },
  };
}
