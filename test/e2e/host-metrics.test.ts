// The metrics where an operator reads them: a real tick writes HEPHAESTUS_METRICS_FILE into the textfile collector
// folder of Debian's prometheus-node-exporter, Debian's prometheus scrapes it every second, and the shipped alert rules
// (deploy/reconcile/alert-rules.yaml, only their `for:` shortened to 0s in a test copy) fire on what it scraped: a failing
// tick, a run that finished long ago, and less than twice HEPHAESTUS_MIN_FREE_GIB free.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';
import { startPrometheusStack } from '../support/host/prometheus-stack.ts';
import type { PrometheusStack } from '../support/host/prometheus-stack.ts';

const RULES = join(import.meta.dirname, '..', '..', 'deploy', 'reconcile', 'alert-rules.yaml');

let dir: string;
let lab: HostLab;
let host: Host;
let stack: PrometheusStack;
let shipped: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'host-metrics-'));
  shipped = await readFile(RULES, 'utf8');
  const copy = join(dir, 'alert-rules.yaml');
  await writeFile(copy, shipped.replace(/^( +)for: \S+$/gm, '$1for: 0s'));
  stack = await startPrometheusStack(dir, copy);
  lab = await makeHostLab();
  host = await lab.host('staging');
});
afterAll(async () => {
  await stack?.stop();
  await lab?.cleanup();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

type Alert = { labels: Record<string, string>; state: string };

async function firing(names: readonly string[]): Promise<Alert[]> {
  const until = Date.now() + 60_000;
  let alerts: Alert[] = [];
  while (Date.now() < until) {
    alerts = ((await stack.api('alerts')).data as { alerts: Alert[] }).alerts;
    const up = new Set(alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname));
    if (names.every((n) => up.has(n))) return alerts;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`alerts ${names.join(', ')} did not all fire within 60 s; prometheus has ${JSON.stringify(alerts)}`);
}

describe('host metrics through node_exporter and prometheus', () => {
  it('the test copy of the rules differs from the shipped ones only in their for: durations', async () => {
    const copy = (await readFile(join(dir, 'alert-rules.yaml'), 'utf8')).split('\n');
    const lines = shipped.split('\n');
    expect(copy.length).toBe(lines.length);
    const changed = lines.filter((line, i) => line !== copy[i]);
    expect(changed.length).toBeGreaterThanOrEqual(5);
    for (const line of changed) expect(line).toMatch(/^ +for: \d+[mh]$/);
  });

  it('a failing, long-ago tick below the free-space threshold: node_exporter serves its file, and the alerts fire', async () => {
    const file = join(stack.textfileDir, 'hephaestus.prom');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    // No channel was ever promoted: the tick refuses; a threshold no disk here has makes the space low.
    const tick = await host.tick({
      HEPHAESTUS_METRICS_FILE: file,
      HEPHAESTUS_NOW: twoHoursAgo,
      HEPHAESTUS_MIN_FREE_GIB: '1000000',
    });
    expect(tick.code, tick.stderr).not.toBe(0);
    const written = await readFile(file, 'utf8');
    expect(written).toContain('hephaestus_deploy_reconcile_success 0\n');
    expect(written).toMatch(/^hephaestus_deploy_free_bytes \d+$/m);

    // node_exporter read the file without a parse error and exports its series as they are.
    const exported = await (await fetch(`${stack.exporterUrl}/metrics`)).text();
    expect(exported).toContain('hephaestus_deploy_reconcile_success 0\n');
    expect(exported).toMatch(/^node_textfile_scrape_error 0$/m);
    // node_exporter writes large values in exponent form (1.79e+09): the same number.
    const stamp = /^hephaestus_deploy_reconcile_timestamp_seconds (\S+)$/m.exec(exported)?.[1];
    expect(Number(stamp)).toBe(Math.floor(Date.parse(twoHoursAgo) / 1000));

    const alerts = await firing([
      'HephaestusReconcileFailing',
      'HephaestusReconcileNotRunning',
      'HephaestusLowFreeSpace',
    ]);
    for (const name of ['HephaestusReconcileFailing', 'HephaestusReconcileNotRunning', 'HephaestusLowFreeSpace'])
      expect(alerts.find((a) => a.labels.alertname === name && a.state === 'firing')?.labels).toMatchObject({
        instance: 'host-1',
        severity: 'warning',
      });
    // The metrics are there, so the rule for their absence stays quiet.
    expect(alerts.filter((a) => a.labels.alertname === 'HephaestusMetricsAbsent')).toEqual([]);
    const query = (await stack.api('query?query=hephaestus_deploy_reconcile_success')).data as {
      result: { metric: Record<string, string>; value: [number, string] }[];
    };
    expect(query.result.map((r) => [r.metric.instance, r.value[1]])).toEqual([['host-1', '0']]);
  });
});
