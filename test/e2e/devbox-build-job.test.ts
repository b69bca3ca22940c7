import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../scripts/lib/ports/kube.ts';
import { systemClock } from '../../scripts/lib/ports/clock.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { parseCatalogue } from '../../scripts/lib/catalogue/parse-catalogue.ts';
import { loadJobTemplate } from '../../scripts/lib/delivery/build-job.ts';
import { runBuildJob } from '../../scripts/lib/delivery/run-build-job.ts';
import { loadTargetProfile } from '../../scripts/lib/target/target-profile.ts';
import type { TargetProfile } from '../../scripts/lib/target/target-profile.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { startBuildkitSimulator } from '../support/buildkit-simulator/buildkit-simulator.ts';
import type { BuildkitSimulator } from '../support/buildkit-simulator/buildkit-simulator.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { seedTestRegistry } from '../support/devbox/seed-registry.ts';
import { startLocalRegistry } from '../support/local-registry.ts';
import type { LocalRegistry } from '../support/local-registry.ts';
import { makePlatformRepo } from '../support/devbox/platform-repo.ts';
import type { PlatformRepo } from '../support/devbox/platform-repo.ts';

const TOP = resolve(import.meta.dirname, '../..');
const GIT = 'git://git.test/platform.git';
let server: KubeApiServer;
let kube: Kube;
let registry: LocalRegistry;
let repo: PlatformRepo;
let buildkit: BuildkitSimulator;
let profile: TargetProfile;
let dir: string;

beforeAll(async () => {
  await ensureBaseImage();
  [server, registry, repo] = await Promise.all([
    startKubeApiServer({ namespaces: ['pharos-build'] }),
    startLocalRegistry(),
    makePlatformRepo(),
  ]);
  kube = kubeFromConfig(server.kubeConfig());
  dir = await mkdtemp(join(tmpdir(), 'build-job-'));
  await writeFile(
    join(dir, 't.yaml'),
    stringify({
      schema: 1,
      kube: {},
      git: { push: repo.bare, cluster: GIT },
      registry: { host: registry.host },
      root: { application: 'r' },
      project: 'p',
      build: { jobTemplate: join(TOP, 'gitops/manifests/pharos-build/buildkit-job.yaml'), timeout: '2m' },
    }),
  );
  profile = await loadTargetProfile(dir, 't');
  buildkit = startBuildkitSimulator({
    kube,
    namespace: 'pharos-build',
    gitRepos: { [GIT]: repo.bare },
    setPodLog: server.setPodLog,
    registry: registry.host,
  });
  await seedTestRegistry(repo.dir, registry.host);
});
afterAll(async () => {
  await buildkit?.stop();
  await Promise.allSettled([
    server?.close(),
    registry?.stop(),
    repo?.remove(),
    rm(dir, { recursive: true, force: true }),
  ]);
});

async function build(name: string, commit: string, fingerprint: string, lines: string[] = []) {
  const catalogue = parseCatalogue(await repo.git('show', `${commit}:gitops/manifests/images.yaml`), 'images.yaml');
  const image = catalogue.images.find((i) => i.name === name)!;
  const options = {
    kube,
    profile,
    template: await loadJobTemplate(profile.jobTemplatePath),
    clock: systemClock,
    progress: (_: string, line: string) => lines.push(line),
    pollMs: 20,
  };
  return runBuildJob(options, { image, fingerprint, commit, prefix: '' });
}

describe('BuildKit Jobs (BuildKit simulator over the real Docker Engine, Git server and registry)', () => {
  it('builds an image with its target and args from the pushed commit and returns the digest the registry holds', async () => {
    const commit = await repo.git('rev-parse', 'HEAD');
    await repo.git('push', '--quiet', repo.bare, `${commit}:refs/heads/devbox`);
    const lines: string[] = [];
    const reference = await build('compat-admin', commit, 'a'.repeat(64), lines);
    const [name, digest] = reference.split('@') as [string, string];
    expect(name).toBe(`${registry.host}/compat-admin`);
    expect(await registry.digest('compat-admin', digest)).toBe(digest);
    expect(lines.some((l) => l.includes('created'))).toBe(true);
    const job = await kube.get('Job', 'pharos-build', `build-compat-admin-${'a'.repeat(16)}`);
    const args = ((job?.['spec'] as any).template.spec.containers[0].args as string[]).join(' ');
    expect(args).toContain(`context=${GIT}#${commit}:apps/compat`);
    expect(args).toContain('build-arg:FLAVOUR=admin');
  });

  it('finds the finished Job of an earlier run by its fingerprint instead of building again', async () => {
    const commit = await repo.git('rev-parse', 'HEAD');
    const runs = buildkit.builds.length;
    const lines: string[] = [];
    const reference = await build('compat-admin', commit, 'a'.repeat(64), lines);
    expect(buildkit.builds.length).toBe(runs);
    expect(lines.some((l) => l.includes('found from an earlier run'))).toBe(true);
    expect(reference).toContain('@sha256:');
  });

  it('fails with the log tail when the Dockerfile is broken', async () => {
    const commit = await repo.commit('broken', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE} AS runtime\nRUN echo boom-from-the-build && exit 7\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${commit}:refs/heads/devbox`);
    await expect(build('compat-web', commit, 'b'.repeat(64))).rejects.toThrow(
      /^Cannot build image "compat-web": Job "pharos-build\/build-compat-web-b{16}" failed: .*non-zero code: 7/,
    );
  });

  it("refuses a base the in-cluster registry does not hold, even one this machine's Docker has", async () => {
    const unseeded = await repo.commit('unseeded base', {
      'apps/compat/Dockerfile': 'ARG BASE_REGISTRY\nFROM ${BASE_REGISTRY}/pharos/unseeded:local AS runtime\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${unseeded}:refs/heads/devbox`);
    await expect(build('compat-web', unseeded, 'c'.repeat(64))).rejects.toThrow(
      `failed to resolve source metadata for ${registry.host}/pharos/unseeded:local: ${registry.host}/pharos/unseeded:local: not found`,
    );
    // pharos/base:local is in the local Docker, but a build reaches only the in-cluster registry.
    expect(await exec('docker', ['image', 'inspect', 'pharos/base:local']).then((r) => r.code)).toBe(0);
    const outside = await repo.commit('base outside the registry', {
      'apps/compat/Dockerfile': 'FROM pharos/base:local AS runtime\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${outside}:refs/heads/devbox`);
    await expect(build('compat-web', outside, 'd'.repeat(64))).rejects.toThrow(
      /failed to resolve source metadata for docker\.io\/pharos\/base:local: failed to do request: Head "https:\/\/registry-1\.docker\.io\/v2\/pharos\/base\/manifests\/local": dial tcp: i\/o timeout/,
    );
  });

  it('refuses a # syntax= frontend the in-cluster registry does not hold', async () => {
    const commit = await repo.commit('frontend', {
      'apps/compat/Dockerfile':
        '# syntax=docker/dockerfile:1\nARG BASE_REGISTRY\nFROM ${BASE_REGISTRY}/pharos/base:local AS runtime\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${commit}:refs/heads/devbox`);
    await expect(build('compat-web', commit, 'e'.repeat(64))).rejects.toThrow(
      /error: failed to solve: docker\/dockerfile:1: failed to resolve source metadata for docker\.io\/docker\/dockerfile:1/,
    );
  });

  it('runs every step without a network: a step that reaches one fails, and so does an ADD of a URL', async () => {
    // The same image on Docker's default network has an interface besides loopback; a build step has none.
    const bridged = await exec('docker', ['run', '--rm', 'pharos/base:local', 'cat', '/proc/net/dev']);
    expect(bridged.stdout.toString('utf8')).toMatch(/^\s*eth0:/m);
    const step = await repo.commit('network step', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nFROM ${BASE_REGISTRY}/pharos/base:local AS runtime\nRUN cat /proc/net/dev && grep -q eth0: /proc/net/dev\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${step}:refs/heads/devbox`);
    const lines: string[] = [];
    await expect(build('compat-web', step, 'f'.repeat(64), lines)).rejects.toThrow(/non-zero code: 1/);
    expect(lines.some((l) => /^\s*lo:/.test(l))).toBe(true);
    expect(lines.some((l) => /^\s*eth0:/.test(l))).toBe(false);
    const add = await repo.commit('add url', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nFROM ${BASE_REGISTRY}/pharos/base:local AS runtime\nADD https://example.org/x.tar /x.tar\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${add}:refs/heads/devbox`);
    await expect(build('compat-web', add, '9'.repeat(64))).rejects.toThrow(
      'failed to load cache key: Get "https://example.org/x.tar": dial tcp: i/o timeout',
    );
  });

  it("starts a failed Job again under the same name once the old one is gone, and reads only the new Job's Pod", async () => {
    const name = `build-compat-web-${'b'.repeat(16)}`;
    const old = await kube.get('Job', 'pharos-build', name);
    const fixed = await repo.commit('fixed', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE} AS runtime\nRUN echo fixed-build\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${fixed}:refs/heads/devbox`);
    // A slow garbage collector: the failed Job's Pod (same job-name label, no digest) is still there during the new build.
    server.pauseControllers();
    const lines: string[] = [];
    try {
      const reference = await build('compat-web', fixed, 'b'.repeat(64), lines);
      expect(reference).toMatch(new RegExp(`^${registry.host}/compat-web@sha256:[0-9a-f]{64}$`));
      const stale = await kube.list('Pod', 'pharos-build', { labelSelector: `job-name=${name}` });
      expect(
        stale.some(
          (p) =>
            (p.metadata as { ownerReferences?: { uid: string }[] }).ownerReferences?.[0]?.uid === old?.metadata.uid,
        ),
      ).toBe(true);
    } finally {
      server.resumeControllers();
    }
    expect(lines).toContain(`job ${name} failed before; starting it again`);
    expect(lines.some((l) => l.includes('boom-from-the-build'))).toBe(false);
    const now = await kube.get('Job', 'pharos-build', name);
    expect(now?.metadata.uid).not.toBe(old?.metadata.uid);
  });

  it('waits for a failed Job that someone deleted without a propagation policy (orphan finalizer) before creating it again', async () => {
    const commit = await repo.commit('broken again', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE} AS runtime\nRUN exit 3\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${commit}:refs/heads/devbox`);
    await expect(build('compat-web', commit, 'c'.repeat(64))).rejects.toThrow(/failed/);
    const name = `build-compat-web-${'c'.repeat(16)}`;
    server.pauseControllers();
    await kube.delete('Job', 'pharos-build', name);
    expect((await kube.get('Job', 'pharos-build', name))?.metadata).toMatchObject({ finalizers: ['orphan'] });
    const fixed = await repo.commit('fixed again', {
      'apps/compat/Dockerfile':
        'ARG BASE_REGISTRY\nARG BASE=${BASE_REGISTRY}/pharos/base:local\nFROM ${BASE} AS runtime\nRUN echo fixed\n',
    });
    await repo.git('push', '--quiet', '--force', repo.bare, `${fixed}:refs/heads/devbox`);
    const building = build('compat-web', fixed, 'c'.repeat(64));
    await new Promise((r) => setTimeout(r, 300));
    expect((await kube.get('Job', 'pharos-build', name))?.metadata).toMatchObject({ finalizers: ['orphan'] });
    server.resumeControllers();
    expect(await building).toContain('@sha256:');
  });
});
