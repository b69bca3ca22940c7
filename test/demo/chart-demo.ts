// `make demo-chart`: a chart host following its channel on a SIMULATED cluster (the Kubernetes API test server and
// the Helm simulator stand in for Kubernetes and Helm), with real Git, signed channels and joint locks and a real
// local registry: install a signed chart release, then follow a commit channel, then an unchanged tick.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fakePins, makeChartLab } from '../support/helm-simulator/chart-lab.ts';
import type { ChartHost } from '../support/helm-simulator/chart-lab.ts';

const say = (title: string) => process.stdout.write(`\n== ${title}\n`);

async function tick(host: ChartHost): Promise<void> {
  process.stdout.write(
    '$ reconcile-deployment.ts --json   (HEPHAESTUS_STACKS=chart, HEPHAESTUS_HELM=<the Helm simulator>)\n',
  );
  const r = await host.tick();
  for (const line of r.journal) process.stdout.write(`  ${line}\n`);
  process.stdout.write(`exit ${r.code}: ${r.result}: ${r.message}\n`);
  if (r.code !== 0) throw new Error(`the tick exited ${r.code}`);
  process.stdout.write(`helm history (simulated): ${(await host.history()).join(' ')}\n`);
}

say('SIMULATED cluster: Kubernetes API test server + Helm simulator; real Git, signatures and registry');
const lab = await makeChartLab();
try {
  const host = await lab.chartHost('staging');
  const main = await lab.lab.repo.git(['rev-parse', 'HEAD']);
  const pins = (c: string) => fakePins(lab.lab, c);

  say('a release: chart packaged, pushed to the registry by digest, signed; joint lock signed by the release key');
  const release = await lab.publishRelease('v1.0.0', main, pins('1'));
  process.stdout.write(`chart: ${release.reference}\n`);
  await lab.lab.signChannel('staging', { release: 'v1.0.0', allowRollback: false });
  await tick(host);

  const next = await lab.lab.commit({ VERSION: 'next\n' }, 'next');
  say(`a commit channel: the source chart of ${next.slice(0, 12)} with the channel's pins`);
  await lab.lab.signChannel('staging', {
    commit: next,
    images: pins('2'),
    refreshDatabaseImage: false,
    allowRollback: false,
  });
  await tick(host);

  say('nothing new on the channel: no Helm upgrade');
  await tick(host);

  say('what the host runs');
  process.stdout.write(await readFile(join(host.root, 'applied.json'), 'utf8'));
  process.stdout.write(await readFile(join(host.root, 'chart', `${next}.images.yaml`), 'utf8'));
} finally {
  await lab.cleanup();
}
