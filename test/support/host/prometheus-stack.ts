// The monitoring a host operator runs, for real: Debian's prometheus-node-exporter with only its textfile collector over
// a folder, and Debian's prometheus scraping it and evaluating alert rules, both on loopback ports, quick intervals.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../../../scripts/lib/demo/local-registry.ts';

export interface PrometheusStack {
  /** node_exporter's --collector.textfile.directory: a host's HEPHAESTUS_METRICS_FILE goes here. */
  readonly textfileDir: string;
  readonly exporterUrl: string;
  readonly prometheusUrl: string;
  /** GET `<prometheus>/api/v1/<path>` as JSON. */
  api(path: string): Promise<{ status: string; data: unknown }>;
  stop(): Promise<void>;
}

async function waitFor(url: string, what: string, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited ${child.exitCode}: ${log()}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url} within 30 s: ${log()}`);
}

function start(program: string, args: readonly string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, log: () => out };
}

/** Starts node_exporter (textfile collector only) and prometheus (scrape and evaluation every second) with `rulesFile`. */
export async function startPrometheusStack(dir: string, rulesFile: string): Promise<PrometheusStack> {
  const textfileDir = join(dir, 'textfile_collector');
  await mkdir(textfileDir, { recursive: true });
  const [exporterPort, prometheusPort] = [await freePort(), await freePort()];
  const exporterUrl = `http://127.0.0.1:${exporterPort}`;
  const prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
  const exporter = start('prometheus-node-exporter', [
    `--web.listen-address=127.0.0.1:${exporterPort}`,
    '--collector.disable-defaults',
    '--collector.textfile',
    `--collector.textfile.directory=${textfileDir}`,
  ]);
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global: {scrape_interval: 1s, evaluation_interval: 1s}',
      `rule_files: [${JSON.stringify(rulesFile)}]`,
      'scrape_configs:',
      '  - job_name: node',
      `    static_configs: [{targets: ["127.0.0.1:${exporterPort}"], labels: {instance: "host-1"}}]`,
      '',
    ].join('\n'),
  );
  const prometheus = start('prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${join(dir, 'tsdb')}`,
    `--web.listen-address=127.0.0.1:${prometheusPort}`,
  ]);
  const stop = async () => {
    for (const { child } of [prometheus, exporter])
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
  };
  try {
    await waitFor(`${exporterUrl}/metrics`, 'node_exporter', exporter.child, exporter.log);
    await waitFor(`${prometheusUrl}/-/ready`, 'prometheus', prometheus.child, prometheus.log);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    textfileDir,
    exporterUrl,
    prometheusUrl,
    api: async (path) =>
      (await (await fetch(`${prometheusUrl}/api/v1/${path}`)).json()) as { status: string; data: unknown },
    stop,
  };
}
