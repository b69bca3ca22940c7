// A chart host follows a signed channel end to end: reconcile-deployment.ts with HEPHAESTUS_STACKS=chart, real git,
// signed channels and joint locks, the real registry, and the Helm simulator over the Kubernetes API test server.
import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePin, fakePins, openChartLab } from '../support/helm-simulator/chart-lab.ts';
import type { ChartHost, ChartLab } from '../support/helm-simulator/chart-lab.ts';
import { HELM_SIMULATOR } from '../support/helm-simulator/paths.ts';
import { runScript } from '../support/platform-repo.ts';

let lab: ChartLab;
let host: ChartHost;
let main: string;
const pins = (c: string) => fakePins(lab.lab, c);
const commitChannel = (environment: string, commit: string, images: Record<string, string>) =>
  lab.lab.signChannel(environment, { commit, images, refreshDatabaseImage: false, allowRollback: false });

beforeAll(async () => {
  ({ lab, host, main } = await openChartLab('staging'));
});

afterAll(async () => {
  await lab?.cleanup();
});

describe('a chart host on a commit channel', () => {
  it('installs the source chart of the verified commit with the channel pins as the last values file', async () => {
    await commitChannel('staging', main, pins('1'));
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.result).toBe('applied');
    expect(tick.journal.filter((l) => / step=\d+ /.test(l)).map((l) => l.split(' ')[0])).toEqual([
      'read',
      'rebuild',
      'adopt-pending',
      'decide',
      'prepare',
      'values',
      'recover',
      'upgrade',
      'record',
      'adopt',
      'prune',
      'metrics',
    ]);
    expect(await host.history()).toEqual(['1:deployed']);
    expect(host.image('hephaestus-server')).toBe(pins('1').HEPHAESTUS_IMAGE_API);
    expect((await host.applied())?.commit).toBe(main);
    const written = join(host.root, 'chart', `${main}.images.yaml`);
    expect(await readFile(written, 'utf8')).toContain(pins('1').HEPHAESTUS_IMAGE_MIGRATE);
    expect((await stat(written)).mode & 0o777).toBe(0o600);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 1');
    expect(tick.journal.join('\n')).toContain(
      'HEPHAESTUS_WAIT_TIMEOUT=20 is not above the 600 s a new Pod may wait for the schema',
    );
  });

  it('an unchanged channel runs no helm upgrade', async () => {
    const tick = await host.tick();
    expect(tick.code).toBe(0);
    expect(tick.result).toBe('noop');
    expect(await host.history()).toEqual(['1:deployed']);
  });

  it('an unchanged tick whose cluster is unreachable fails (exit 1) and changes nothing', async () => {
    const before = await host.appliedBytes();
    const kubeconfig = join(host.root, 'unreachable.kubeconfig');
    await writeFile(
      kubeconfig,
      'apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: x}}]\nclusters: [{name: x, cluster: {server: "http://127.0.0.1:1"}}]\n',
    );
    const tick = await host.tick({ KUBECONFIG: kubeconfig });
    expect(tick.code).toBe(1);
    expect(tick.message).toContain('Cannot read the status of release "hephaestus"');
    expect(tick.message).toContain('Kubernetes cluster unreachable');
    expect(await host.appliedBytes()).toBe(before);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0');
  });

  it('a helm whose child keeps stdout open is bounded: the tick ends at the two-minute limit (exit 1), the group killed', async () => {
    const before = await host.appliedBytes();
    const pidFile = join(host.root, 'hostile-helm.pid');
    const hostile = join(host.root, 'hostile-helm');
    // Helm answers, but a process it left behind holds its stdout: only the deadline on the whole group ends the wait.
    await writeFile(hostile, `#!/bin/sh\nsleep 600 &\necho $! > ${pidFile}\nexec ${HELM_SIMULATOR} "$@"\n`, {
      mode: 0o755,
    });
    const started = Date.now();
    const tick = await host.tick({ HEPHAESTUS_HELM: hostile });
    const seconds = (Date.now() - started) / 1000;
    expect(tick.code, tick.stderr).toBe(1);
    expect(tick.message).toMatch(
      /Cannot run .*hostile-helm status: .*no answer within 120 s; its process group was killed/,
    );
    expect(seconds).toBeGreaterThanOrEqual(120);
    expect(seconds).toBeLessThan(200);
    const sleeper = Number((await readFile(pidFile, 'utf8')).trim());
    expect(/^\d+ \(.*\) [ZX]/.test(await readFile(`/proc/${sleeper}/stat`, 'utf8').catch(() => '0 (gone) X'))).toBe(
      true,
    );
    expect(await host.appliedBytes()).toBe(before);
    expect(await host.history()).toEqual(['1:deployed']);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0');
  }, 300_000);

  it('a failed migration Job restores the previous revision; applied.json does not move and the metrics say failed', async () => {
    const before = await host.appliedBytes();
    const next = await lab.lab.commit({ VERSION: 'two\n' }, 'second');
    const bad = { ...pins('2'), HEPHAESTUS_IMAGE_MIGRATE: fakePin(lab.lab, 'migrate', 'f') };
    lab.controllers.faults.failJobImages.add(bad.HEPHAESTUS_IMAGE_MIGRATE);
    await commitChannel('staging', next, bad);
    const tick = await host.tick();
    expect(tick.code).toBe(1);
    expect(tick.message).toContain(
      'resource Job/ns-staging/hephaestus-migration-2 not ready. status: Failed, message: Job Failed. failed: 1/1',
    );
    expect(await host.history()).toEqual(['1:superseded', '2:failed', '3:deployed']);
    expect(host.image('hephaestus-server')).toBe(pins('1').HEPHAESTUS_IMAGE_API);
    expect(await host.appliedBytes()).toBe(before);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0');
  });

  it('a process killed mid-upgrade leaves pending-upgrade; the next tick rolls back to the last good revision, then upgrades', async () => {
    const next = await lab.lab.commit({ VERSION: 'three\n' }, 'third');
    await commitChannel('staging', next, pins('3'));
    const faults = join(host.root, 'helm-faults.json');
    await writeFile(faults, JSON.stringify({ kill: 'upgrade' }));
    const killed = await host.tick({ HELM_SIMULATOR_FAULTS: faults });
    expect(killed.code).toBe(1);
    expect((await host.history()).at(-1)).toBe('4:pending-upgrade');
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.journal.filter((l) => l.startsWith('recover ')).join('\n')).toContain(
      'rolled back pending-upgrade revision 4 to 3',
    );
    expect(await host.history()).toEqual([
      '1:superseded',
      '2:failed',
      '3:superseded',
      '4:pending-upgrade',
      '5:superseded',
      '6:deployed',
    ]);
    expect((await host.applied())?.commit).toBe(next);
    expect(host.image('hephaestus-server')).toBe(pins('3').HEPHAESTUS_IMAGE_API);
  });

  it('a history longer than --history-max (10) keeps the last 10 revisions; a stopped upgrade over it recovers as Helm would', async () => {
    const applied = String((await host.applied())?.commit);
    const chart = join(host.root, 'releases', applied, 'deploy', 'chart', 'hephaestus');
    const byHand = () =>
      host.helm(
        'upgrade',
        'hephaestus',
        chart,
        '--values',
        join(chart, 'profiles', 'small.yaml'),
        '--values',
        join(host.root, 'chart', `${applied}.images.yaml`),
      );
    for (let i = 0; i < 6; i++) expect((await byHand()).code).toBe(0);
    expect(await host.history()).toEqual([
      '3:superseded',
      '4:pending-upgrade',
      ...[5, 6, 7, 8, 9, 10, 11].map((r) => `${r}:superseded`),
      '12:deployed',
    ]);
    const next = await lab.lab.commit({ VERSION: 'three and a half\n' }, 'third and a half');
    await commitChannel('staging', next, pins('3'));
    const faults = join(host.root, 'helm-faults.json');
    await writeFile(faults, JSON.stringify({ kill: 'upgrade' }));
    expect((await host.tick({ HELM_SIMULATOR_FAULTS: faults })).code).toBe(1);
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.journal.filter((l) => l.startsWith('recover ')).join('\n')).toContain(
      'rolled back pending-upgrade revision 13 to 12',
    );
    expect(await host.history()).toEqual([
      ...[6, 7, 8, 9, 10, 11, 12].map((r) => `${r}:superseded`),
      '13:pending-upgrade',
      '14:superseded',
      '15:deployed',
    ]);
    expect((await host.applied())?.commit).toBe(next);
  });
});

describe('a chart host refuses bad local settings with exit 2, naming the value', () => {
  it('a profile the release lacks', async () => {
    const next = await lab.lab.commit({ VERSION: 'four\n' }, 'fourth');
    await commitChannel('staging', next, pins('4'));
    const tick = await host.tick({ HEPHAESTUS_CHART_PROFILE: 'small large' });
    expect(tick.code).toBe(2);
    expect(tick.message).toContain('profile "large", which the release lacks (it has: small, small-16gib)');
  });

  it('a chart.yaml that is not mode 0600, or that sets images', async () => {
    const file = join(host.etc, 'chart.yaml');
    await writeFile(file, 'worker:\n  replicas: 2\n', { mode: 0o644 });
    await chmod(file, 0o644);
    const loose = await host.tick();
    expect(loose.code).toBe(2);
    expect(loose.message).toContain(`Cannot use "${file}": mode 644 must be 600`);
    await writeFile(file, `images:\n  HEPHAESTUS_IMAGE_API: ${pins('9').HEPHAESTUS_IMAGE_API}\n`);
    await chmod(file, 0o600);
    const images = await host.tick();
    expect(images.code).toBe(2);
    expect(images.message).toContain('it sets "images", which only the host writes');
    await rm(file);
  });

  it('a chart.yaml that sets images or release through a YAML merge key, an alias or a second document', async () => {
    const file = join(host.etc, 'chart.yaml');
    const revisions = await host.history();
    const evil = pins('9').HEPHAESTUS_IMAGE_API;
    for (const [text, key] of [
      [`<<: {images: {HEPHAESTUS_IMAGE_API: "${evil}"}}\nworker: {replicas: 1}\n`, 'images'],
      [`pins: &p {HEPHAESTUS_IMAGE_API: "${evil}"}\n<<: {images: *p}\n`, 'images'],
      ['defaults: &d {name: v9.9.9}\nrelease:\n  <<: *d\n', 'release'],
      [`worker: {replicas: 1}\n---\n!!binary aW1hZ2Vz: {HEPHAESTUS_IMAGE_API: "${evil}"}\n`, 'images'],
    ] as const) {
      await writeFile(file, text, { mode: 0o600 });
      const tick = await host.tick();
      expect([tick.code, tick.message]).toEqual([
        2,
        expect.stringContaining(`it sets "${key}", which only the host writes`),
      ]);
    }
    expect(await host.history()).toEqual(revisions);
    await rm(file);
  });

  it('a bad HEPHAESTUS_CHART_NAMESPACE or a chart beside Compose stacks', async () => {
    const ns = await host.tick({ HEPHAESTUS_CHART_NAMESPACE: 'Bad_NS' });
    expect(ns.code).toBe(2);
    expect(ns.stderr).toContain('HEPHAESTUS_CHART_NAMESPACE');
    expect(ns.stderr).toContain('Bad_NS');
    const mixed = await host.tick({ HEPHAESTUS_STACKS: 'chart app' });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('chart takes no other stack');
  });

  it('with the operator values fixed, the profiles, chart.yaml and pins apply in that order', async () => {
    const file = join(host.etc, 'chart.yaml');
    await writeFile(file, 'worker:\n  replicas: 3\n', { mode: 0o600 });
    const tick = await host.tick({ HEPHAESTUS_CHART_PROFILE: 'small,small-16gib' });
    expect(tick.code, tick.stderr).toBe(0);
    const status = JSON.parse((await host.helm('status', 'hephaestus', '-o', 'json')).out) as {
      config: { worker: { replicas: number }; images: Record<string, string> };
    };
    expect(status.config.worker.replicas).toBe(3);
    expect(status.config.images).toEqual(pins('4'));
    await rm(file);
  });
});

describe('a release Helm never finished', () => {
  it('fails naming the exact helm uninstall command; after the operator runs it, the next tick installs again', async () => {
    const qa = await lab.chartHost('qa');
    await commitChannel('qa', main, pins('5'));
    const faults = join(qa.root, 'helm-faults.json');
    await writeFile(faults, JSON.stringify({ kill: 'install' }));
    expect((await qa.tick({ HELM_SIMULATOR_FAULTS: faults })).code).toBe(1);
    expect(await qa.history()).toEqual(['1:pending-install']);
    const stuck = await qa.tick();
    expect(stuck.code).toBe(1);
    expect(stuck.message).toContain(
      `run: ${join(import.meta.dirname, '..', 'support', 'helm-simulator', 'helm')} uninstall hephaestus --namespace ns-qa`,
    );
    expect(await qa.applied()).toBeUndefined();
    expect((await qa.helm('uninstall', 'hephaestus')).code).toBe(0);
    const tick = await qa.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(await qa.history()).toEqual(['1:deployed']);
  });
});

describe('from a commit channel to a release', () => {
  it('the tick refuses it (exit 3); after the operator applies the verified target by hand, the tick completes the record', async () => {
    const head = await lab.lab.repo.git(['rev-parse', 'HEAD']);
    await lab.publishRelease('v1.0.0', head, pins('6'));
    await lab.lab.signChannel('staging', { release: 'v1.0.0', allowRollback: false });
    const refused = await host.tick();
    expect(refused.code).toBe(3);
    expect(refused.message).toContain('a commit chart has no release version');
    const dir = join(host.root, 'chart');
    const prepared = await runScript('prepare-release-chart.ts', ['v1.0.0', head, dir, HELM_SIMULATOR], host.env);
    expect(prepared.code, prepared.stderr).toBe(0);
    const profile = join(host.root, 'releases', 'v1.0.0', 'deploy', 'chart', 'hephaestus', 'profiles', 'small.yaml');
    const manual = await host.helm(
      'upgrade',
      '--install',
      'hephaestus',
      join(dir, 'hephaestus-1.0.0.tgz'),
      '--values',
      profile,
      '--values',
      join(dir, 'v1.0.0.images.yaml'),
      '--set',
      'server.replicas=1',
      '--set',
      'worker.replicas=0',
      '--wait=watcher',
      '--wait-for-jobs',
      '--timeout',
      '20s',
    );
    expect(manual.code, manual.err).toBe(0);
    const revisions = (await host.history()).length;
    const tick = await host.tick();
    expect(tick.code, tick.stderr).toBe(0);
    expect(tick.journal.find((l) => l.startsWith('upgrade '))).toContain('helm="already deployed"');
    expect((await host.history()).length).toBe(revisions);
    expect((await host.applied())?.release).toBe('v1.0.0');
  });
});
