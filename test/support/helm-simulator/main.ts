#!/usr/bin/env node
// Helm simulator: an executable standing in for `helm` 4 (no Helm binary can be installed here). It keeps release
// history as Helm's Secrets driver does, in the Kubernetes API test server named by KUBECONFIG, renders a chart's
// templates (a documented subset), applies them there and waits on the status the cluster's controllers write.
// Commands: upgrade [--install], history, status, rollback, uninstall, pull oci://…@sha256:…, version.
// Fidelity and limits: docs/test-cluster.md "Helm simulator".
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readChartArchive } from '../../../scripts/lib/host/chart/chart-archive.ts';
import { summarizeChart } from '../../../scripts/lib/host/chart/chart-metadata.ts';
import { parseOciReference, pullChartByDigest } from '../../../scripts/lib/host/chart/oci-chart.ts';
import { Actions, HelmFailure } from './actions.ts';
import { parseArgs } from './args.ts';
import { reportedDigest } from './faults.ts';
import type { HelmArgs } from './args.ts';
import { KubeClient } from './kube-client.ts';
import type { Release } from './release-store.ts';

const HELP = `The Helm simulator (helm 4 CLI subset, for tests; see docs/test-cluster.md).

Usage:
  helm upgrade --install RELEASE CHART [--namespace NS] [--values FILE]... [--set K=V]... [--rollback-on-failure] [--wait[=watcher]] [--wait-for-jobs] [--timeout DURATION]
  helm history RELEASE [--namespace NS] [-o json] [--max N]
  helm status RELEASE [--namespace NS] [-o json]
  helm rollback RELEASE [REVISION] [--namespace NS] [--wait] [--timeout DURATION]
  helm uninstall RELEASE [--namespace NS]
  helm pull oci://HOST/REPOSITORY@sha256:DIGEST [--destination DIR]
  helm version
`;

const out = (text: string) => process.stdout.write(text);

function historyRow(r: Release) {
  return {
    revision: r.version,
    updated: r.info.last_deployed,
    status: r.info.status,
    chart: `${String(r.chart.metadata.name)}-${String(r.chart.metadata.version)}`,
    app_version: String(r.chart.metadata.appVersion ?? ''),
    description: r.info.description,
  };
}

async function run(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    out(HELP);
    return 0;
  }
  if (command === 'version') {
    out('version.BuildInfo{Version:"v4.3.1-simulator", GitCommit:"", GitTreeState:"clean", GoVersion:"simulated"}\n');
    return 0;
  }
  const args: HelmArgs = parseArgs(rest);
  if (command === 'pull') return pull(args);
  const actions = new Actions(new KubeClient(process.env.KUBECONFIG), args.namespace);
  const name = args.positional[0];
  if (name === undefined) throw new HelmFailure(`"helm ${command}" requires at least 1 argument`);
  if (command === 'upgrade') {
    const chart = args.positional[1];
    if (chart === undefined) throw new HelmFailure('"helm upgrade" requires 2 arguments');
    const release = await actions.upgrade(name, chart, args);
    out(
      `Release "${name}" has been upgraded. Happy Helming!\nNAME: ${name}\nNAMESPACE: ${args.namespace}\nSTATUS: ${release.info.status}\nREVISION: ${release.version}\n`,
    );
    return 0;
  }
  if (command === 'history') {
    const history = await actions.history(name);
    if (history.length === 0) throw new HelmFailure('release: not found');
    const rows = history.slice(-(args.max ?? 256)).map(historyRow);
    if (args.output === 'json') out(`${JSON.stringify(rows)}\n`);
    else
      for (const r of rows)
        out(`${r.revision}\t${r.updated}\t${r.status}\t${r.chart}\t${r.app_version}\t${r.description}\n`);
    return 0;
  }
  if (command === 'status') {
    const last = (await actions.history(name)).at(-1);
    if (last === undefined) throw new HelmFailure('release: not found');
    if (args.output === 'json') out(`${JSON.stringify(last)}\n`);
    else out(`NAME: ${name}\nNAMESPACE: ${args.namespace}\nSTATUS: ${last.info.status}\nREVISION: ${last.version}\n`);
    return 0;
  }
  if (command === 'rollback') {
    const revision = Number(args.positional[1] ?? '0');
    await actions.rollback(name, revision, args);
    out('Rollback was a success! Happy Helming!\n');
    return 0;
  }
  if (command === 'uninstall') {
    await actions.uninstall(name);
    out(`release "${name}" uninstalled\n`);
    return 0;
  }
  throw new HelmFailure(`unknown command "${command}" for "helm"`);
}

/** `helm pull oci://…@sha256:…`: the chart from the registry, written as <name>-<version>.tgz; prints Pulled and Digest. */
async function pull(args: HelmArgs): Promise<number> {
  const reference = args.positional[0];
  if (reference === undefined) throw new HelmFailure('"helm pull" requires 1 argument');
  const ref = parseOciReference(reference);
  const pulled = await pullChartByDigest(reference, args.timeoutMs);
  const summary = summarizeChart(readChartArchive(pulled.archive, reference), reference);
  const dir = args.destination ?? '.';
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${summary.metadata.name}-${summary.metadata.version}.tgz`);
  writeFileSync(`${file}.partial`, pulled.archive);
  renameSync(`${file}.partial`, file);
  out(`Pulled: ${ref.host}/${ref.repository}@${ref.digest}\nDigest: ${reportedDigest(pulled.digest)}\n`);
  return 0;
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
