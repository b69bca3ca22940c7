#!/usr/bin/env node
// Helm simulator: an executable standing in for `helm` 4 (no Helm binary can be installed here). It keeps release
// history as Helm's Secrets driver does, in the Kubernetes API test server named by KUBECONFIG, renders a chart's
// templates (a documented subset), applies them there and waits on the status the cluster's controllers write.
// Commands: upgrade [--install], status, get metadata, history, list, rollback, uninstall, pull oci://…@sha256:…,
// version. Each prints what helm/helm@e9b85e4's pkg/cmd prints (printers.ts); behaviours and their sources:
// actions.ts, release-actions.ts, release-store.ts, apply-objects.ts, wait-ready.ts, kstatus.ts, args.ts.
// Fidelity and limits: docs/test-cluster.md "Helm simulator".
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from './args.ts';
import type { HelmArgs } from './args.ts';
import { reportedDigest } from './faults.ts';
import { HelmFailure } from './helm-failure.ts';
import { KubeClient } from './kube-client.ts';
import {
  historyJson,
  historyTable,
  listJson,
  metadataJson,
  metadataTable,
  statusJson,
  statusTable,
  upgradeTable,
} from './printers.ts';
import type { Release } from './release-store.ts';
import { session } from './session.ts';

const HELP = `The Helm simulator (helm 4 CLI subset, for tests; see docs/test-cluster.md).

Usage:
  helm upgrade --install RELEASE CHART [--namespace NS] [--values FILE]... [--set K=V]... [--rollback-on-failure] [--wait[=watcher|hookOnly]] [--wait-for-jobs] [--timeout DURATION] [--history-max N]
  helm status RELEASE [--namespace NS] [-o json]
  helm get metadata RELEASE [--namespace NS] [-o json]
  helm history RELEASE [--namespace NS] [-o json] [--max N]
  helm list [--namespace NS] [-o json]
  helm rollback RELEASE [REVISION] [--namespace NS] [--wait] [--timeout DURATION] [--history-max N]
  helm uninstall RELEASE [--namespace NS]
  helm pull oci://HOST/REPOSITORY@sha256:DIGEST [--destination DIR]
  helm version
`;

const out = (text: string) => process.stdout.write(text);
const json = (args: HelmArgs) => args.output === 'json';

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
  const args: HelmArgs = parseArgs(command === 'get' ? rest.slice(1) : rest);
  if (command === 'pull') return pull(args);
  const s = session(new KubeClient(process.env.KUBECONFIG), args.namespace);
  if (command === 'list') {
    const latest = new Map<string, Release>();
    for (const item of await s.kube.list(s.kube.path('v1', 'Secret', args.namespace), 'owner=helm')) {
      const name = String((item.metadata.labels as Record<string, string>).name);
      if (!latest.has(name)) latest.set(name, await s.store.last(name));
    }
    out(
      json(args)
        ? listJson([...latest.values()])
        : [...latest.keys()]
            .sort()
            .map((n) => `${n}\n`)
            .join(''),
    );
    return 0;
  }
  const name = args.positional[0];
  if (command === 'get' && rest[0] !== 'metadata')
    throw new HelmFailure(`unknown command "${rest[0] ?? ''}" for "helm get"`);
  if (name === undefined) throw new HelmFailure(`"helm ${command}" requires 1 argument`);
  if (command === 'upgrade') {
    const chart = args.positional[1];
    if (chart === undefined) throw new HelmFailure('"helm upgrade" requires 2 arguments');
    // Loaded only by the commands that need them: every simulated call starts a process.
    const { upgradeInstall } = await import('./actions.ts');
    const { release, installed } = await upgradeInstall(s, name, chart, args);
    out(json(args) ? statusJson(release) : upgradeTable(release, installed));
    return 0;
  }
  if (command === 'status') {
    const last = await s.store.last(name);
    out(json(args) ? statusJson(last) : statusTable(last));
    return 0;
  }
  if (command === 'get') {
    const last = await s.store.last(name);
    out(json(args) ? metadataJson(last) : metadataTable(last));
    return 0;
  }
  if (command === 'history') {
    const history = await s.store.history(name);
    if (history.length === 0) throw new HelmFailure('release: not found');
    out(json(args) ? historyJson(history, args.max ?? 256) : historyTable(history, args.max ?? 256));
    return 0;
  }
  if (command === 'rollback') {
    const revision = args.positional[1] ?? '0';
    if (!/^-?\d+$/.test(revision))
      throw new HelmFailure(
        `could not convert revision to a number: strconv.Atoi: parsing "${revision}": invalid syntax`,
      );
    const { rollback } = await import('./release-actions.ts');
    await rollback(s, name, Number(revision), args);
    out('Rollback was a success! Happy Helming!\n');
    return 0;
  }
  if (command === 'uninstall') {
    const { uninstall } = await import('./release-actions.ts');
    const kept = await uninstall(s, name, args);
    if (kept.length > 0)
      out(
        `${kept.length} resource(s) were not deleted because they are not owned by this release:\n${kept.join('\n')}\n\n`,
      );
    out(`release "${name}" uninstalled\n`);
    return 0;
  }
  throw new HelmFailure(`unknown command "${command}" for "helm"`);
}

/** `helm pull oci://…@sha256:…`: the chart from the registry, written as <name>-<version>.tgz; prints Pulled and Digest. */
async function pull(args: HelmArgs): Promise<number> {
  const reference = args.positional[0];
  if (reference === undefined) throw new HelmFailure('"helm pull" requires 1 argument');
  const { parseOciReference, pullChartByDigest } = await import('../../../scripts/lib/host/chart/oci-chart.ts');
  const { readChartArchive } = await import('../../../scripts/lib/host/chart/chart-archive.ts');
  const { summarizeChart } = await import('../../../scripts/lib/host/chart/chart-metadata.ts');
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
