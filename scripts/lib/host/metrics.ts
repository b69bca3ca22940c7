/** What the metrics file reports after a tick. */
export interface MetricsInput {
  readonly channel: string;
  /** The applied release, or commit for a commit channel; undefined before the first apply. */
  readonly release: string | undefined;
  readonly channelCommit: string | undefined;
  readonly success: boolean;
  readonly now: Date;
  readonly lastSuccess: Date | undefined;
  readonly toolingPending: boolean;
  /** The least free space on the file systems holding Docker's data and containerd's image store. */
  readonly freeBytes: number | undefined;
  /** HEPHAESTUS_MIN_FREE_GIB in bytes: the alert warns at twice it. */
  readonly minFreeBytes: number;
  readonly channelVersion: number | undefined;
  readonly channelExpiry: Date | undefined;
}

/** Label values escaped as the text exposition format requires: backslash, double quote, newline. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** node_exporter textfile content (spec "Metrics"); pure. */
export function formatMetrics(m: MetricsInput): string {
  const lines: string[] = [];
  const gauge = (name: string, help: string, value: number | undefined, labels = '') => {
    if (value === undefined) return;
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}${labels} ${value}`);
  };
  const info = `{channel="${escapeLabel(m.channel)}",release="${escapeLabel(m.release ?? '')}",channel_commit="${escapeLabel(m.channelCommit ?? '')}"}`;
  gauge('hephaestus_deploy_info', 'The applied release (or commit) and accepted deploy-state commit.', 1, info);
  gauge(
    'hephaestus_deploy_reconcile_success',
    '1 if the last reconcile applied or found nothing to do.',
    m.success ? 1 : 0,
  );
  gauge('hephaestus_deploy_reconcile_timestamp_seconds', 'When the last reconcile finished.', seconds(m.now));
  gauge('hephaestus_deploy_tooling_pending', '1 if a tooling update waits for an apply.', m.toolingPending ? 1 : 0);
  gauge(
    'hephaestus_deploy_last_success_timestamp_seconds',
    'When a tick last applied a release or commit (an unchanged channel does not move it).',
    m.lastSuccess === undefined ? undefined : seconds(m.lastSuccess),
  );
  gauge(
    'hephaestus_deploy_free_bytes',
    "Least free bytes on the file systems holding Docker's data and containerd's image store.",
    m.freeBytes,
  );
  gauge(
    'hephaestus_deploy_min_free_bytes',
    'HEPHAESTUS_MIN_FREE_GIB in bytes: a tick that must pull refuses below it.',
    m.minFreeBytes,
  );
  gauge('hephaestus_deploy_channel_version', 'Version of the verified channel.', m.channelVersion);
  gauge(
    'hephaestus_deploy_channel_expiry_timestamp_seconds',
    'Expiry of the verified channel.',
    m.channelExpiry === undefined ? undefined : seconds(m.channelExpiry),
  );
  return `${lines.join('\n')}\n`;
}

/** The last-success time a previous metrics file recorded, so a failure keeps it. */
export function lastSuccessFrom(text: string | undefined): Date | undefined {
  const match = /^hephaestus_deploy_last_success_timestamp_seconds (\d+)$/m.exec(text ?? '');
  return match === null ? undefined : new Date(Number(match[1]) * 1000);
}
