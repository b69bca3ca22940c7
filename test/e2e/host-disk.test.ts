// Disk hygiene on a host that follows releases, against real ticks (git, Docker Engine, registry, Compose): only the kept
// worktrees, locks and images stay; free space is checked only when a pull is needed.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import { runScript } from '../support/platform-repo.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
const images: Record<string, Record<string, string>> = {};
const step = (journal: readonly string[], name: string) => journal.filter((l) => l.startsWith(`${name} `));

/** Images the lab built and pushed, untagged locally, so the host pulls them by digest as a production host does. */
async function buildPulledByDigest(
  label: string,
  only?: Parameters<HostLab['build']>[1],
): Promise<Record<string, string>> {
  const built = await lab.build(label, only);
  for (const reference of Object.values(built))
    await exec('docker', ['image', 'rm', reference.replace(/@sha256:.*$/, `:${label}`)]);
  return built;
}

async function releaseAndTick(tag: string, pins: Record<string, string>, extra: NodeJS.ProcessEnv = {}) {
  const commit = await lab.commit({ RELEASE: `${tag}\n` }, tag);
  await lab.tag(tag, commit);
  await lab.publishLock(tag, commit, pins);
  await lab.promote('staging', ['--release', tag]);
  return host.tick(extra);
}

/** The untagged images of one repository the host holds, by digest. */
async function localDigests(repository: string): Promise<string[]> {
  const listed = await exec('docker', [
    'image',
    'ls',
    '--digests',
    '--no-trunc',
    '--format',
    '{{.Repository}} {{.Tag}} {{.Digest}}',
    `${lab.registry.host}/${repository}`,
  ]);
  return listed.stdout
    .toString()
    .split('\n')
    .filter((l) => l.includes(' <none> sha256:'))
    .map((l) => `${lab.registry.host}/${repository}@${l.split(' ')[2]}`)
    .sort();
}

beforeAll(async () => {
  lab = await makeHostLab();
  host = await lab.host('staging');
  images.v0 = await buildPulledByDigest('d0');
  const commit = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', commit);
  await lab.publishLock('v1.0.0', commit, images.v0);
  await lab.promote('staging', ['--release', 'v1.0.0']);
  const first = await host.tick();
  if (first.code !== 0) throw new Error(`first install failed: ${first.stderr}`);
});
afterAll(async () => {
  if (lab !== undefined) {
    const listed = await exec('docker', [
      'image',
      'ls',
      '--digests',
      '--no-trunc',
      '--format',
      '{{.Repository}}@{{.Digest}}',
    ]);
    const pulled = listed.stdout
      .toString()
      .split('\n')
      .filter((l) => l.startsWith(`${lab.registry.host}/`) && l.includes('@sha256:'));
    if (pulled.length > 0) await exec('docker', ['image', 'rm', ...pulled]);
  }
  await lab?.cleanup();
});

describe('after each apply, only the kept set stays', () => {
  it('keeps the applied and previous releases, a locked worktree and one holding files; removes the rest, their locks and images', async () => {
    for (const n of [1, 2, 3, 4]) {
      images[`v${n}`] = { ...images.v0, ...(await buildPulledByDigest(`d${n}`, { only: ['HEPHAESTUS_IMAGE_API'] })) };
      const tick = await releaseAndTick(`v1.${n}.0`, images[`v${n}`] ?? {});
      expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
      if (n === 1)
        await mkdir(join(host.root, 'releases', 'v1.0.0', 'docker', 'letsencrypt'), { recursive: true }).then(() =>
          writeFile(join(host.root, 'releases', 'v1.0.0', 'docker', 'letsencrypt', 'acme.json'), '{}'),
        );
      if (n === 2)
        await exec('git', [
          '-C',
          join(host.root, 'cache', 'deploy-state.git'),
          'worktree',
          'lock',
          '--reason',
          'incident review',
          join(host.root, 'releases', 'v1.1.0'),
        ]);
      if (n === 4) {
        expect(step(tick.journal, 'prune').join('\n')).toMatch(
          /prune status=kept worktree=v1\.0\.0 why="holds files absent from its release"/,
        );
        expect(step(tick.journal, 'prune').join('\n')).toMatch(/prune status=kept worktree=v1\.1\.0 why=locked/);
        expect(step(tick.journal, 'prune').join('\n')).toMatch(/prune step=\d+ status=ok .*removed=v1\.2\.0 kept=4/);
        expect(step(tick.journal, 'image').join('\n')).toContain(
          `image status=removed image=${images.v2?.HEPHAESTUS_IMAGE_API}`,
        );
        expect(step(tick.journal, 'image').join('\n')).toContain(
          `image status=kept image=${images.v4?.HEPHAESTUS_IMAGE_API}`,
        );
      }
    }
    expect((await readdir(join(host.root, 'releases'))).sort()).toEqual(['v1.0.0', 'v1.1.0', 'v1.3.0', 'v1.4.0']);
    expect((await readdir(join(host.root, 'release-locks'))).sort()).toEqual([
      'v1.0.0.env',
      'v1.1.0.env',
      'v1.3.0.env',
      'v1.4.0.env',
    ]);
    // Images: the applied and previous releases' only; a kept worktree keeps no image.
    expect(await localDigests('pharos/api')).toEqual(
      [images.v3?.HEPHAESTUS_IMAGE_API, images.v4?.HEPHAESTUS_IMAGE_API].sort(),
    );
    expect(await localDigests('pharos/worker')).toEqual([images.v0?.HEPHAESTUS_IMAGE_WORKER]);
    expect(await host.applied()).toMatchObject({ release: 'v1.4.0', previous: { release: 'v1.3.0' } });
  });

  it('promoting the running release again keeps the previous one', async () => {
    await lab.promote('staging', ['--release', 'v1.4.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([0, 'applied', 'reapply']);
    expect(await host.applied()).toMatchObject({ release: 'v1.4.0', previous: { release: 'v1.3.0' } });
    expect(await readdir(join(host.root, 'releases'))).toContain('v1.3.0');
  });
});

describe('free space', () => {
  const huge = { HEPHAESTUS_MIN_FREE_GIB: String(1024 * 1024) };

  it('a release that needs a pull below HEPHAESTUS_MIN_FREE_GIB is refused before anything stops: exit 1, the journal names the space and the threshold', async () => {
    const running = await host.running();
    const record = await host.appliedBytes();
    images.v5 = { ...images.v0, ...(await buildPulledByDigest('d5', { only: ['HEPHAESTUS_IMAGE_API'] })) };
    const tick = await releaseAndTick('v1.5.0', images.v5 ?? {}, huge);
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(step(tick.journal, 'pull')[0]).toMatch(
      /status=failed .*\[disk-space\] Cannot pull 1 image\(s\): [\d.]+ GiB free on \\"\/.+\\", below HEPHAESTUS_MIN_FREE_GIB=1048576; nothing was stopped/,
    );
    expect(step(tick.journal, 'stop-worker')).toEqual([]);
    expect(await host.running()).toEqual(running);
    expect(await host.appliedBytes()).toBe(record);
    const metrics = await host.metrics();
    expect(metrics).toMatch(/^hephaestus_deploy_free_bytes \d+$/m);
    expect(metrics).toContain(`hephaestus_deploy_min_free_bytes ${1024 ** 5}\n`);
  });

  it('a rollback to the previous release, whose images are here, is never refused for space', async () => {
    await lab.promote('staging', ['--release', 'v1.3.0', '--allow-rollback']);
    const tick = await host.tick(huge);
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(step(tick.journal, 'pull')[0]).toMatch(/pulled=0/);
    expect(await host.applied()).toMatchObject({ release: 'v1.3.0', previous: { release: 'v1.4.0' } });
  });
});

describe('reconcile-deployment.ts status', () => {
  it('reports what runs, from which signed request, how the last tick ended, the tooling and free space', async () => {
    const run = await runScript('reconcile-deployment.ts', ['status', '--json'], host.env);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.out);
    expect(status).toMatchObject({
      channel: 'staging',
      applied: { release: 'v1.3.0', commit: expect.stringMatching(/^[0-9a-f]{40}$/), previous: 'v1.4.0' },
      request: { version: expect.any(Number), signer: expect.stringMatching(/^key:/), expires: expect.any(String) },
      lastTick: { result: 'applied', exit: 0, decision: 'apply', target: 'v1.3.0' },
      tooling: { pending: false },
      disk: { freeBytes: expect.any(Number), minFreeBytes: 10 * 1024 ** 3 },
    });
    expect(
      status.services.map(
        (s: { stack: string; service: string; state: string }) => `${s.stack}/${s.service} ${s.state}`,
      ),
    ).toEqual(['app/api running', 'app/worker running', 'core/postgres running']);
    expect(status.services.find((s: { service: string }) => s.service === 'api').image).toBe(
      images.v3?.HEPHAESTUS_IMAGE_API,
    );
    const text = await runScript('reconcile-deployment.ts', ['status'], host.env);
    expect(text.out).toMatch(/^applied: v1\.3\.0 \(commit [0-9a-f]{40}\) at .*; previous v1\.4\.0$/m);
    expect(text.out).toMatch(/^ {2}app\/api {2}running \(healthy\) /m);
    expect(text.out).toMatch(/^last tick: applied \(exit 0\)/m);
  });

  it('on a host that applied nothing yet, says so', async () => {
    const fresh = await lab.host('fresh');
    const run = await runScript('reconcile-deployment.ts', ['status'], fresh.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.out).toMatch(/^applied: nothing yet/m);
    expect(run.out).toMatch(/^last tick: none recorded$/m);
  });
});
