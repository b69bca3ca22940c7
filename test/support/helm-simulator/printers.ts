// What each Helm 4 command prints, from its Go code at helm/helm@e9b85e4 (checked against pkg/cmd/testdata/output/ by
// test/e2e/helm-contracts.test.ts): pkg/cmd/status.go (JSON: the release with `rel.Chart = nil`; table: statusPrinter),
// get_metadata.go + pkg/action/get_metadata.go Metadata, history.go releaseInfo, list.go releaseElement.
import { ansic, goJson, goTimeString, sortedMap, uitable } from './go-output.ts';
import type { Release } from './release-store.ts';

const chartName = (r: Release) => `${String(r.chart.metadata.name)}-${String(r.chart.metadata.version)}`;
const appVersion = (r: Release) => String(r.chart.metadata.appVersion ?? '');
const nonEmpty = <T extends object>(v: T | undefined) =>
  v === undefined || Object.keys(v).length === 0 ? undefined : v;

/** pkg/release/v1/info.go Info.MarshalJSON: zero times and empty strings are left out. */
function info(r: Release) {
  const i = r.info;
  return {
    first_deployed: i.first_deployed || undefined,
    last_deployed: i.last_deployed || undefined,
    deleted: i.deleted || undefined,
    description: i.description || undefined,
    status: i.status,
    rollback_revision: i.rollback_revision || undefined,
    notes: i.notes || undefined,
  };
}

/** `helm status -o json`: every field of the release but `chart`, omitempty, config as a Go map. */
export function statusJson(r: Release): string {
  return goJson({
    name: r.name,
    info: info(r),
    config: nonEmpty(r.config) === undefined ? undefined : sortedMap(r.config),
    manifest: r.manifest || undefined,
    version: r.version || undefined,
    namespace: r.namespace,
    apply_method: r.apply_method || undefined,
  });
}

/** statusPrinter.WriteTable without resources, hooks or debug: what install, upgrade and status print. */
export function statusTable(r: Release): string {
  const lines = [`NAME: ${r.name}`];
  if (r.info.last_deployed) lines.push(`LAST DEPLOYED: ${ansic(r.info.last_deployed)}`);
  lines.push(
    `NAMESPACE: ${r.namespace}`,
    `STATUS: ${r.info.status}`,
    `REVISION: ${r.version}`,
    `DESCRIPTION: ${r.info.description ?? ''}`,
    'TEST SUITE: None',
  );
  if (r.info.notes) lines.push(`NOTES:\n${r.info.notes.trim()}`);
  return `${lines.join('\n')}\n`;
}

/** upgrade.go's table output: the install or upgrade line, then the release's status. */
export const upgradeTable = (r: Release, installed: boolean): string =>
  `${installed ? `Release "${r.name}" does not exist. Installing it now.` : `Release "${r.name}" has been upgraded. Happy Helming!`}\n${statusTable(r)}`;

/** action.Metadata: the release's chart metadata and the Secret's labels (Storage.Last keeps the system labels). */
function metadata(r: Release) {
  const m = r.chart.metadata as {
    name?: string;
    version?: string;
    appVersion?: string;
    annotations?: Record<string, string>;
    dependencies?: { name?: string }[];
  };
  return {
    name: r.name,
    chart: m.name ?? '',
    version: m.version ?? '',
    appVersion: m.appVersion ?? '',
    annotations: nonEmpty(m.annotations) === undefined ? undefined : sortedMap(m.annotations),
    labels: nonEmpty(r.labels) === undefined ? undefined : sortedMap(r.labels),
    dependencies: m.dependencies === undefined || m.dependencies.length === 0 ? undefined : m.dependencies,
    namespace: r.namespace,
    revision: r.version,
    status: r.info.status,
    deployedAt: (r.info.last_deployed ?? '').replace(/\.\d+Z$/, 'Z'),
    applyMethod: r.apply_method || undefined,
  };
}

export const metadataJson = (r: Release): string => goJson(metadata(r));

export function metadataTable(r: Release): string {
  const m = metadata(r);
  const set = (v: unknown) =>
    Object.entries((v ?? {}) as Record<string, string>)
      .map(([k, x]) => `${k}=${x}`)
      .join(',');
  const method =
    m.applyMethod === undefined
      ? 'client-side apply (defaulted)'
      : m.applyMethod === 'ssa'
        ? 'server-side apply'
        : 'client-side apply';
  return [
    `NAME: ${m.name}`,
    `CHART: ${m.chart}`,
    `VERSION: ${m.version}`,
    `APP_VERSION: ${m.appVersion}`,
    `ANNOTATIONS: ${set(m.annotations)}`,
    `LABELS: ${set(m.labels)}`,
    `DEPENDENCIES: ${(m.dependencies ?? [])
      .map((d) => d.name ?? '')
      .sort()
      .join(',')}`,
    `NAMESPACE: ${m.namespace}`,
    `REVISION: ${m.revision}`,
    `STATUS: ${m.status}`,
    `DEPLOYED_AT: ${m.deployedAt}`,
    `APPLY_METHOD: ${method}`,
    '',
  ].join('\n');
}

/** getHistory: the newest `max` revisions, printed oldest first. */
function historyRows(history: readonly Release[], max: number) {
  return history.slice(-max).map((r) => ({
    revision: r.version,
    updated: r.info.last_deployed || undefined,
    status: r.info.status,
    chart: chartName(r),
    app_version: appVersion(r),
    rollback_revision: r.info.rollback_revision || undefined,
    description: r.info.description ?? '',
  }));
}

export const historyJson = (history: readonly Release[], max: number): string => goJson(historyRows(history, max));

export function historyTable(history: readonly Release[], max: number): string {
  const rows = historyRows(history, max).map((r) => [
    r.revision,
    r.updated === undefined ? ansic('0001-01-01T00:00:00Z') : ansic(r.updated),
    r.status,
    r.chart,
    r.app_version,
    r.description,
  ]);
  return uitable([['REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION', 'DESCRIPTION'], ...rows]);
}

/** `helm list -o json`: the newest revision of each release, by name, every state (the default state mask). */
export function listJson(latest: readonly Release[]): string {
  return goJson(
    [...latest]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((r) => ({
        name: r.name,
        namespace: r.namespace,
        revision: String(r.version),
        updated: r.info.last_deployed ? goTimeString(r.info.last_deployed) : '-',
        status: r.info.status,
        chart: chartName(r),
        app_version: appVersion(r),
      })),
  );
}
