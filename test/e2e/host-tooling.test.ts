// Tooling adoption on a host installed as the pull-deployment document says (a reconciler checkout and the `tooling`
// link), against real ticks: the link moves only after a verified release is applied, units are rewritten (and systemd
// reloaded, through a recording double) only when they changed, and a tick stopped before adoption completes it first.
import { mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import { buildFailingImage } from '../support/host/example-images.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

const REPO = join(import.meta.dirname, '..', '..');
const RECORDER = join(import.meta.dirname, '..', 'support', 'host', 'systemctl-recorder.sh');

let lab: HostLab;
let host: Host;
let images: Record<string, string>;
let systemd: string;
let record: string;
let env: NodeJS.ProcessEnv;
const reloads = async () =>
  (await readFile(record, 'utf8').catch(() => '')).split('\n').filter((l) => l === 'daemon-reload').length;
const tooling = async () => readlink(join(host.root, 'tooling'));
const step = (journal: readonly string[], name: string) => journal.find((l) => l.startsWith(`${name} `)) ?? '';

/** A release that carries a reconciler (package.json, its lock, the entry point and the units), with `unitNote` in the service. */
async function release(tag: string, unitNote: string, pins: Record<string, string> = images): Promise<string> {
  const service =
    (await readFile(join(REPO, 'deploy', 'reconcile', 'hephaestus-reconcile.service'), 'utf8')) + `# ${unitNote}\n`;
  const commit = await lab.commit(
    { 'deploy/reconcile/hephaestus-reconcile.service': service, RELEASE: `${tag}\n` },
    tag,
  );
  await lab.tag(tag, commit);
  await lab.publishLock(tag, commit, pins);
  await lab.promote('staging', ['--release', tag]);
  return commit;
}

beforeAll(async () => {
  lab = await makeHostLab();
  await lab.commit(
    {
      'package.json': '{"name": "platform", "private": true, "type": "module"}\n',
      'package-lock.json':
        '{"name": "platform", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "platform"}}}\n',
      'scripts/reconcile-deployment.ts': "process.stdout.write('the platform reconciler\\n');\n",
      'deploy/reconcile/hephaestus-reconcile.timer': await readFile(
        join(REPO, 'deploy', 'reconcile', 'hephaestus-reconcile.timer'),
        'utf8',
      ),
    },
    'carry the reconciler',
  );
  images = await lab.build('a1');
  host = await lab.host('staging');
  // The document's install: the reconciler clone and the link to it.
  await execOk(exec, 'git', [
    'clone',
    '--quiet',
    '--branch',
    'main',
    '--single-branch',
    lab.repo.remote,
    join(host.root, 'checkout'),
  ]);
  await exec('ln', ['-sfn', join(host.root, 'checkout'), join(host.root, 'tooling')]);
  systemd = join(lab.repo.root, 'systemd');
  record = join(lab.repo.root, 'systemctl.log');
  await mkdir(systemd);
  env = { HEPHAESTUS_SYSTEMD_DIR: systemd, HEPHAESTUS_SYSTEMCTL: RECORDER, SYSTEMCTL_RECORD: record };
});
afterAll(async () => {
  if (lab !== undefined) await exec('docker', ['image', 'rm', `${lab.registry.host}/pharos/migrate:broken`]);
  await lab?.cleanup();
});

describe('tooling adoption', () => {
  it('after the first verified apply: units installed, systemd reloaded once, then the link moved to the release', async () => {
    await release('v1.0.0', 'one');
    const tick = await host.tick(env);
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(step(tick.journal, 'adopt')).toMatch(
      /adopted=v1\.0\.0 units="hephaestus-reconcile\.service hephaestus-reconcile\.timer"/,
    );
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.0.0'));
    expect(await readFile(join(systemd, 'hephaestus-reconcile.service'), 'utf8')).toMatch(/# one\n$/);
    expect(await reloads()).toBe(1);
    expect(await host.metrics()).toContain('hephaestus_deploy_tooling_pending 0\n');
    // Release worktrees belong to the checkout, so the document's `git -C …/checkout worktree lock` works.
    const listed = (await exec('git', ['-C', join(host.root, 'checkout'), 'worktree', 'list'])).stdout.toString();
    expect(listed).toContain(join(host.root, 'releases', 'v1.0.0'));
  });

  it('unchanged units are not rewritten and systemd is not reloaded', async () => {
    await release('v1.1.0', 'one');
    const tick = await host.tick(env);
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(step(tick.journal, 'adopt')).toMatch(/adopted=v1\.1\.0 units=unchanged/);
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.1.0'));
    expect(await reloads()).toBe(1);
  });

  it('a failed apply never moves the link', async () => {
    const broken = await buildFailingImage(
      lab.registry,
      'pharos/migrate',
      'broken',
      images.HEPHAESTUS_IMAGE_MIGRATE ?? '',
      3,
    );
    await release('v1.2.0', 'two', { ...images, HEPHAESTUS_IMAGE_MIGRATE: broken });
    const tick = await host.tick(env);
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.1.0'));
    expect(await reloads()).toBe(1);
  });

  it('a tick stopped before adoption ends (systemd could not reload) leaves it pending; the next tick completes it before reading the channel', async () => {
    await release('v1.3.0', 'three');
    const failed = await host.tick({ ...env, SYSTEMCTL_FAIL: '1' });
    expect([failed.code, failed.result], failed.stderr).toEqual([1, 'failed']);
    expect(step(failed.journal, 'adopt')).toMatch(/status=failed .*\[tooling\] Cannot reload systemd/);
    expect(await host.applied()).toMatchObject({ release: 'v1.3.0' });
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.1.0'));
    expect(await host.metrics()).toContain('hephaestus_deploy_tooling_pending 1\n');
    const attempts = await reloads();

    // The unit copies already match, but systemd never read them: the next tick reloads before it moves the link.
    const next = await host.tick(env);
    expect([next.code, next.result], next.stderr).toEqual([0, 'noop']);
    expect(next.journal.map((l) => l.split(' ')[0]).slice(0, 4)).toEqual([
      'read',
      'rebuild',
      'adopt-pending',
      'decide',
    ]);
    expect(step(next.journal, 'adopt-pending')).toMatch(/adopted=v1\.3\.0 units=unchanged reload=retried/);
    expect(await reloads()).toBe(attempts + 1);
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.3.0'));
    expect(await host.metrics()).toContain('hephaestus_deploy_tooling_pending 0\n');
  });

  it('a release that carries no reconciler leaves the tooling where it is', async () => {
    await lab.commit({ 'scripts/reconcile-deployment.ts': null }, 'reconciler moved out');
    const commit = await lab.repo.git(['rev-parse', 'HEAD']);
    await lab.tag('v1.4.0', commit);
    await lab.publishLock('v1.4.0', commit, images);
    await lab.promote('staging', ['--release', 'v1.4.0']);
    const tick = await host.tick(env);
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(step(tick.journal, 'adopt')).toMatch(/tooling="release carries no reconciler"/);
    expect(await tooling()).toBe(join(host.root, 'releases', 'v1.3.0'));
    await writeFile(join(host.root, 'note'), 'x');
  });
});
