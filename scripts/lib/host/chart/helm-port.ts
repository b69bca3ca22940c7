import { z } from 'zod';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import type { Exec, ExecResult } from '../../ports/exec.ts';
import { ChartError } from './chart-error.ts';

// Status and history reads have a two-minute limit (the seed's "Settings for the chart").
export const READ_TIMEOUT_MS = 2 * 60 * 1000;
export const PULL_TIMEOUT_MS = 10 * 60 * 1000;

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

/** One row of `helm history -o json` (helm pkg/cmd/history.go releaseInfo). */
export const historyRowSchema = z.object({
  revision: z.number().int().positive(),
  status: z.enum(RELEASE_STATUSES),
  chart: z.string(),
  app_version: z.string().optional(),
  description: z.string().optional(),
  updated: z.string().optional(),
});
export type HistoryRow = z.output<typeof historyRowSchema>;

/** The parts of `helm status -o json` a host reads: status, chart metadata and the values it was given. */
export const statusSchema = z.object({
  name: z.string(),
  version: z.number().int().positive(),
  info: z.object({ status: z.enum(RELEASE_STATUSES) }),
  chart: z.object({ metadata: z.object({ name: z.string(), version: z.string() }) }),
  config: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type HelmStatus = z.output<typeof statusSchema>;

export interface Helm {
  /** Every revision, oldest first; undefined when Helm knows no such release. */
  history(): Promise<HistoryRow[] | undefined>;
  status(): Promise<HelmStatus | undefined>;
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

function parseJson<T>(schema: z.ZodType<T>, r: ExecResult, what: string): T {
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
  return {
    uninstallCommand: `${binary} uninstall ${release} --namespace ${namespace}`,
    history: async () => {
      const r = await call(['history', release, ...ns, '--output', 'json', '--max', '256'], READ_TIMEOUT_MS);
      if (r.code !== 0 && notFound(r)) return undefined;
      if (r.code !== 0)
        throw new ChartError(
          'helm-failed',
          `Cannot read the history of release "${release}": helm exited ${r.code}: ${tail(r)}`,
        );
      return [...parseJson(z.array(historyRowSchema), r, `helm history ${release}`)].sort(
        (a, b) => a.revision - b.revision,
      );
    },
    status: async () => {
      const r = await call(['status', release, ...ns, '--output', 'json'], READ_TIMEOUT_MS);
      if (r.code !== 0 && notFound(r)) return undefined;
      if (r.code !== 0)
        throw new ChartError(
          'helm-failed',
          `Cannot read the status of release "${release}": helm exited ${r.code}: ${tail(r)}`,
        );
      return parseJson(statusSchema, r, `helm status ${release}`);
    },
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
