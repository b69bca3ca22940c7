// A chart host on a release channel: the joint lock, the chart at its OCI digest in the real registry and its
// signature are verified before Helm sees anything; a major release is a cutover with its own refusals.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { fakePins, openChartLab } from '../support/helm-simulator/chart-lab.ts';
import { HELM_SIMULATOR } from '../support/helm-simulator/paths.ts';
import { runScript } from '../support/platform-repo.ts';
import { RESOURCE_TYPES } from '../support/kube-api-server/index.ts';
import type { ChartHost, ChartLab } from '../support/helm-simulator/chart-lab.ts';

let lab: ChartLab;
let host: ChartHost;
let main: string;
const pins = (c: string) => fakePins(lab.lab, c);
const promote = (release: string, extra: Record<string, unknown> = {}) =>
  lab.lab.signChannel('production', { release, allowRollback: false, ...extra });
const replicas = (name: string) =>
  (
    lab.server.store
      .entries()
      .find((e) => e.type.kind === 'Deployment' && e.namespace === host.namespace && e.object.metadata['name'] === name)
      ?.object['spec'] as { replicas: number }
  ).replicas;

beforeAll(async () => {
  ({ lab, host, main } = await openChartLab('production'));
});

afterAll(async () => {
  await lab?.cleanup();
});

describe('a chart host on a release channel', () => {
  it('applies the verified package pulled by digest, with the lock pins; no schema-1 lock exists or is asked for', async () => {
    const release = await lab.publishRelease('v1.2.0', main, pins('1'));
    await promote('v1.2.0');
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.journal.find((l) => l.startsWith('prepare '))).toContain('source="verified package"');
    expect(await host.history()).toEqual(['1:deployed']);
    // Helm 4's status carries no chart: the installed chart version is get metadata's.
    expect(JSON.parse((await host.helm('status', 'hephaestus', '-o', 'json')).out)).not.toHaveProperty('chart');
    const metadata = JSON.parse((await host.helm('get', 'metadata', 'hephaestus', '-o', 'json')).out) as {
      chart: string;
      version: string;
    };
    expect(metadata).toMatchObject({ chart: 'hephaestus', version: '1.2.0' });
    expect((await readdir(join(host.root, 'chart'))).sort()).toEqual(['hephaestus-1.2.0.tgz', 'v1.2.0.images.yaml']);
    expect(await readFile(join(host.root, 'release-locks', 'v1.2.0.env'), 'utf8')).toContain(
      `HEPHAESTUS_CHART_REFERENCE=${release.reference}`,
    );
    const ls = await exec('git', ['-C', lab.lab.repo.remote, 'ls-tree', '--name-only', 'deploy-state', 'locks/']);
    expect(ls.stdout.toString()).not.toMatch(/release-v1\.2\.0\.json\n/);
    expect(host.image('hephaestus-worker')).toBe(pins('1').HEPHAESTUS_IMAGE_WORKER);
  });

  it('prepare-release-chart.ts verifies the same way by hand and writes the package and the pins; a wrong commit writes nothing', async () => {
    const out = join(lab.lab.repo.root, 'manual-chart');
    const r = await runScript('prepare-release-chart.ts', ['v1.2.0', main, out, HELM_SIMULATOR, '--json'], host.env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      chart: join(out, 'hephaestus-1.2.0.tgz'),
      values: join(out, 'v1.2.0.images.yaml'),
      commit: main,
    });
    expect(await readFile(join(out, 'v1.2.0.images.yaml'), 'utf8')).toContain(pins('1').HEPHAESTUS_IMAGE_MIGRATE);
    const other = join(lab.lab.repo.root, 'manual-wrong');
    const wrong = await runScript(
      'prepare-release-chart.ts',
      ['v1.2.0', 'f'.repeat(40), other, HELM_SIMULATOR],
      host.env,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`tag "v1.2.0" is commit ${main}, not ${'f'.repeat(40)}`);
    expect(await readdir(other).catch(() => [])).toEqual([]);
  });

  it("the document's five-argument form: a local copy of the evidence manifest, verified with the published signature", async () => {
    const tree = join(lab.lab.repo.root, 'releases-v1.2.0', 'security');
    await mkdir(tree, { recursive: true });
    const manifest = join(tree, 'release-images.json');
    const published = (
      await exec('git', ['-C', lab.lab.repo.remote, 'show', 'deploy-state:locks/release-v1.2.0.evidence.json'])
    ).stdout
      .toString()
      .trimEnd();
    await writeFile(manifest, `${published}\n`);
    const out = join(lab.lab.repo.root, 'manual-five');
    const r = await runScript('prepare-release-chart.ts', ['v1.2.0', main, out, HELM_SIMULATOR, manifest], host.env);
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['hephaestus-1.2.0.tgz', 'v1.2.0.images.yaml']);
    // One byte changed (another pin): the published signature does not cover it, nothing is written.
    await writeFile(
      manifest,
      `${published}\n`.replace(
        /"HEPHAESTUS_IMAGE_API": "[^"]*"/,
        `"HEPHAESTUS_IMAGE_API": "${pins('9').HEPHAESTUS_IMAGE_API}"`,
      ),
    );
    const other = join(lab.lab.repo.root, 'manual-five-wrong');
    const refused = await runScript(
      'prepare-release-chart.ts',
      ['v1.2.0', main, other, HELM_SIMULATOR, manifest],
      host.env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /\[evidence\]: Cannot apply v1\.2\.0: Cannot verify \"release-v1\.2\.0\.evidence\.json\": bundle message digest is not the SHA-256/,
    );
    expect(await readdir(other).catch(() => [])).toEqual([]);
  });

  const refusals: [string, Parameters<ChartLab['publishRelease']>[3], RegExp][] = [
    ['an unsigned chart', { chartSigner: 'none' }, /Cannot find locks\/release-v1\.3\.\d\.chart\.tgz\.sigstore\.json/],
    [
      'a chart signed by the promotion key (wrong role)',
      { chartSigner: 'promote' },
      /\[chart-signature\] Cannot apply v1\.3\.1: Cannot verify "chart hephaestus-1\.3\.1\.tgz"/,
    ],
    [
      'a lock signed by the promotion key (wrong role)',
      { lockSigner: 'promote' },
      /\[signature\] Cannot verify "release-v1\.3\.2\.chart\.json"/,
    ],
    [
      'a lock whose chart name differs from the package metadata',
      { lock: (l) => ({ ...l, chart: { ...l.chart, name: 'hephaestus-other' } }) },
      /Chart\.yaml says hephaestus 1\.3\.\d, the joint lock hephaestus-other/,
    ],
    [
      'a lock that names another chart digest',
      {
        lock: (l) => ({
          ...l,
          chart: { ...l.chart, reference: l.chart.reference.replace(/@sha256:.*/, `@sha256:${'0'.repeat(64)}`) },
        }),
      },
      /\[pull-failed\].*answered 404/,
    ],
    [
      'a chart that pins an image the lock does not name',
      {
        lock: (l) => ({
          ...l,
          images: {
            HEPHAESTUS_IMAGE_API: l.images.HEPHAESTUS_IMAGE_API ?? '',
            HEPHAESTUS_IMAGE_MIGRATE: l.images.HEPHAESTUS_IMAGE_MIGRATE ?? '',
          },
        }),
      },
      /the chart pins "HEPHAESTUS_IMAGE_WORKER", which the signed lock does not name/,
    ],
    [
      'an evidence manifest signed by the promotion key (wrong role)',
      { evidenceSigner: 'promote' },
      /\[evidence\] Cannot apply v1\.3\.\d: Cannot verify "release-v1\.3\.\d\.evidence\.json"/,
    ],
    [
      'an evidence manifest that names another chart package',
      { evidence: (e) => ({ ...e, chart: { ...e.chart, package: { ...e.chart.package, sha256: '0'.repeat(64) } } }) },
      /\[evidence\] Cannot apply v1\.3\.\d: the evidence manifest names chart package sha256 0{64}/,
    ],
    [
      'no evidence manifest',
      { evidence: 'none' },
      /Cannot find locks\/release-v1\.3\.\d\.evidence\.json\.sigstore\.json/,
    ],
  ];
  refusals.forEach(([what, options, message], index) => {
    it(`refuses ${what} before running Helm's upgrade; v1.2.0 keeps running`, async () => {
      const tag = `v1.3.${index}`;
      const before = await host.appliedBytes();
      await lab.publishRelease(tag, main, pins(String(index + 2)), options);
      await promote(tag);
      const tick = await host.tick();
      expect(tick.code).toBe(1);
      expect(tick.message).toMatch(message);
      expect(tick.journal.some((l) => l.startsWith('upgrade '))).toBe(false);
      expect(await host.appliedBytes()).toBe(before);
      expect(await host.history()).toEqual(['1:deployed']);
      expect((await readdir(join(host.root, 'chart'))).filter((f) => f.endsWith('.tgz'))).toEqual([
        'hephaestus-1.2.0.tgz',
      ]);
    });
  });
});

describe("a chart host trusts the digest, not Helm's word", () => {
  it("refuses a pull whose reported digest differs from the lock's (a lying registry or proxy)", async () => {
    await lab.publishRelease('v1.3.9', main, pins('7'));
    await promote('v1.3.9');
    const faults = join(host.root, 'pull-faults.json');
    await writeFile(faults, JSON.stringify({ pullDigest: `sha256:${'e'.repeat(64)}` }));
    const tick = await host.tick({ HELM_SIMULATOR_FAULTS: faults });
    expect(tick.code).toBe(1);
    expect(tick.message).toMatch(
      new RegExp(`helm pulled digest sha256:e{64}, the joint lock names sha256:[0-9a-f]{64}`),
    );
    expect(await host.history()).toEqual(['1:deployed']);
    expect((await readdir(join(host.root, 'chart'))).filter((f) => f.endsWith('.tgz'))).toEqual([
      'hephaestus-1.2.0.tgz',
    ]);
  });
});

describe('the release workflow', () => {
  it('--produce pushes and signs the chart, --evidence writes the manifest, publish-lock --chart publishes all: a host applies it', async () => {
    const out = join(lab.lab.repo.root, 'produced');
    const produced = await runScript('prepare-release-chart.ts', [
      '--produce',
      '--chart-dir',
      join(lab.lab.repo.work, 'deploy', 'chart', 'hephaestus'),
      '--release',
      'v1.6.0',
      '--registry',
      lab.lab.registry.host,
      '--repository',
      'ci/charts/hephaestus',
      '--key',
      lab.lab.releaseKey,
      '--out',
      out,
    ]);
    expect(produced.code, produced.stderr).toBe(0);
    const chart = JSON.parse(await readFile(join(out, 'chart.json'), 'utf8')) as {
      name: string;
      version: string;
      reference: string;
    };
    expect(chart).toMatchObject({ name: 'hephaestus', version: '1.6.0' });
    expect(produced.out.trim()).toBe(chart.reference);
    // The joint lock as `prepare-release-lock.ts --produce --chart chart.json` writes it, signed by the release key.
    const lock = Buffer.from(
      `${JSON.stringify({ schemaVersion: 2, kind: 'chart', release: 'v1.6.0', commit: main, chart, images: pins('c') }, null, 2)}\n`,
    );
    const { loadSigningKey, signWithKey } = await import('../../scripts/lib/signing/sign-with-key.ts');
    const key = loadSigningKey(await readFile(lab.lab.releaseKey), lab.lab.releaseKey);
    await writeFile(join(out, 'release-v1.6.0.chart.json'), lock);
    await writeFile(join(out, 'release-v1.6.0.chart.json.sigstore.json'), signWithKey(lock, key));
    const evidence = await runScript('prepare-release-chart.ts', [
      '--evidence',
      '--release',
      'v1.6.0',
      '--dir',
      out,
      '--key',
      lab.lab.releaseKey,
    ]);
    expect(evidence.code, evidence.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, 'release-v1.6.0.evidence.json'), 'utf8')) as {
      chart: { reference: string; package: { file: string } };
    };
    expect(manifest.chart).toMatchObject({ reference: chart.reference, package: { file: 'hephaestus-1.6.0.tgz' } });
    const published = await runScript('ci.ts', [
      'publish-lock',
      '--chart',
      '--release',
      'v1.6.0',
      '--dir',
      out,
      '--repo',
      lab.lab.repo.remote,
    ]);
    expect(published.code, published.stderr).toBe(0);
    expect((JSON.parse(published.out) as { files: string[] }).files).toEqual([
      'locks/release-v1.6.0.chart.json',
      'locks/release-v1.6.0.chart.json.sigstore.json',
      'locks/release-v1.6.0.chart.tgz.sigstore.json',
      'locks/release-v1.6.0.evidence.json',
      'locks/release-v1.6.0.evidence.json.sigstore.json',
    ]);
    await lab.lab.tag('v1.6.0', main);
    const ci = await lab.chartHost('ci');
    await lab.lab.signChannel('ci', { release: 'v1.6.0', allowRollback: false });
    const tick = await ci.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(ci.image('hephaestus-server')).toBe(pins('c').HEPHAESTUS_IMAGE_API);
    const refused = await runScript('prepare-release-chart.ts', [
      '--produce',
      '--chart-dir',
      join(lab.lab.repo.work, 'deploy', 'chart', 'hephaestus'),
      '--release',
      '1.6.0',
      '--registry',
      lab.lab.registry.host,
      '--repository',
      'x',
      '--key',
      lab.lab.releaseKey,
      '--out',
      out,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('release "1.6.0" is not vX.Y.Z');
  });
});

describe('a major release is a cutover', () => {
  it('is refused (exit 3) while the installed values still run the server and workers', async () => {
    await lab.publishRelease('v2.0.0', main, pins('8'));
    await promote('v2.0.0');
    const tick = await host.tick();
    expect(tick.code).toBe(3);
    expect(tick.message).toContain('the installed values run 1 server and 1 worker replicas');
    expect(await host.history()).toEqual(['1:deployed']);
  });

  it('with server and workers stopped by the source chart, applies the target with one server and no worker', async () => {
    const chart = join(host.root, 'chart');
    const stop = await host.helm(
      'upgrade',
      '--install',
      'hephaestus',
      join(chart, 'hephaestus-1.2.0.tgz'),
      '--values',
      join(chart, 'v1.2.0.images.yaml'),
      '--set',
      'server.replicas=0',
      '--set',
      'worker.replicas=0',
      '--wait=watcher',
      '--wait-for-jobs',
      '--timeout',
      '20s',
    );
    expect(stop.code, stop.err).toBe(0);
    // A sandbox Pod still writing: the cutover waits for it (exit 3), then goes on once it is gone.
    const podType = RESOURCE_TYPES.find((t) => t.kind === 'Pod')!;
    lab.server.store.create(podType, host.namespace, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sandbox-1', labels: { 'hephaestus.role': 'sandbox' } },
      spec: { containers: [{ name: 's', image: 'x' }] },
    });
    const waiting = await host.tick();
    expect(waiting.code).toBe(3);
    expect(waiting.message).toContain('writer workloads still run in "ns-production": Pod sandbox-1');
    lab.server.store.remove(podType, host.namespace, 'sandbox-1');
    const before = await host.appliedBytes();
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.journal.find((l) => l.startsWith('upgrade '))).toContain('helm=cutover');
    expect(replicas('hephaestus-server')).toBe(1);
    expect(replicas('hephaestus-worker')).toBe(0);
    expect((await host.applied())?.release).toBe('v2.0.0');
    // Helm finished but the record was lost (a crash before "record"): the next tick completes it without an upgrade.
    await writeFile(join(host.root, 'applied.json'), before ?? '');
    const again = await host.tick();
    expect(again.code, again.stderr).toBe(0);
    expect(again.journal.find((l) => l.startsWith('upgrade '))).toContain('helm="already deployed"');
    expect(await host.history()).toEqual(['1:superseded', '2:superseded', '3:deployed']);
    expect((await host.applied())?.release).toBe('v2.0.0');
  });

  it('never downgrades a major version automatically, even with allowRollback', async () => {
    await promote('v1.2.0', { allowRollback: true });
    const tick = await host.tick();
    expect(tick.code).toBe(3);
    expect(tick.reason).toBe('major-downgrade');
    expect(await host.history()).toEqual(['1:superseded', '2:superseded', '3:deployed']);
  });
});

describe('a stopped cutover', () => {
  it('a cutover killed mid-upgrade stops reconciliation (exit 3) and never rolls the old release back onto the migrated database', async () => {
    await lab.publishRelease('v3.0.0', main, pins('9'));
    const chart = join(host.root, 'chart');
    const stop = await host.helm(
      'upgrade',
      '--install',
      'hephaestus',
      join(chart, 'hephaestus-2.0.0.tgz'),
      '--values',
      join(chart, 'v2.0.0.images.yaml'),
      '--set',
      'server.replicas=0',
      '--set',
      'worker.replicas=0',
      '--wait=watcher',
      '--wait-for-jobs',
      '--timeout',
      '20s',
    );
    expect(stop.code, stop.err).toBe(0);
    await promote('v3.0.0');
    const faults = join(host.root, 'helm-faults.json');
    await writeFile(faults, JSON.stringify({ kill: 'upgrade' }));
    expect((await host.tick({ HELM_SIMULATOR_FAULTS: faults })).code).toBe(1);
    const pending = await host.history();
    expect(pending.at(-1)).toMatch(/:pending-upgrade$/);
    const tick = await host.tick();
    expect(tick.code).toBe(3);
    expect(tick.message).toMatch(
      /the cutover of release "hephaestus" from hephaestus-2\.0\.0 to hephaestus-3\.0\.0 stopped/,
    );
    expect(await host.history()).toEqual(pending);
    expect((await host.applied())?.release).toBe('v2.0.0');
  });
});

describe('switching a host between Compose and the chart', () => {
  it('a Compose host switched to the chart installs the release it runs with Helm; switched back, Compose runs it again', async () => {
    // The app stack alone (API, worker, migration) keeps the Compose side small; the chart pins the same three images.
    const images = await lab.lab.build('switch', {
      only: ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_WORKER', 'HEPHAESTUS_IMAGE_MIGRATE'],
    });
    await lab.lab.publishLock('v1.5.0', main, images);
    await lab.publishRelease('v1.5.0', main, images);
    const edge = await lab.lab.host('edge', { stacks: 'app' });
    await lab.lab.signChannel('edge', { release: 'v1.5.0', allowRollback: false });
    const compose = await edge.tick();
    expect(compose.code, compose.stderr).toBe(0);
    const ids = (await edge.containers()).map((c) => c.id);
    expect(ids.length).toBeGreaterThan(0);
    // The seed's steps: timer off, the Compose stacks stopped (volumes kept), HEPHAESTUS_STACKS=chart and its settings.
    await exec('docker', ['stop', '--time', '2', ...ids]);
    const composeSettings = { HEPHAESTUS_STACKS: edge.env.HEPHAESTUS_STACKS };
    Object.assign(edge.env, lab.chartSettings('edge'));
    const switched = await edge.tick();
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.journal.find((l) => l.startsWith('decide ') && l.includes('status=switch'))).toContain(
      'helm="no release"',
    );
    expect((await edge.applied())?.release).toBe('v1.5.0');
    const status = JSON.parse(
      (
        await exec(HELM_SIMULATOR, ['status', 'hephaestus', '--namespace', 'ns-edge', '-o', 'json'], {
          env: { ...process.env, KUBECONFIG: edge.env.KUBECONFIG },
        })
      ).stdout.toString(),
    ) as { info: { status: string }; config: { images: Record<string, string> } };
    expect(status.info.status).toBe('deployed');
    expect(status.config.images.HEPHAESTUS_IMAGE_API).toBe(images.HEPHAESTUS_IMAGE_API);
    const unchanged = await edge.tick();
    expect(unchanged.result).toBe('noop');
    // And back: the cluster stopped, the Compose stacks started again, HEPHAESTUS_STACKS as before.
    Object.assign(edge.env, composeSettings);
    await exec('docker', ['start', ...ids]);
    const back = await edge.tick();
    expect(back.code, back.stderr).toBe(0);
    expect(back.result).toBe('noop');
    expect((await edge.containers()).filter((c) => c.running).length).toBe(ids.length);
  });
});
