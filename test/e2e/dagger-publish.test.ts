// Pushes through the Dagger module (real SDK, engine simulator) to the real local registry, and the release lock a
// real host verifier accepts.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '@dagger.io/dagger';
import { Pharos } from '../../dagger/src/index.ts';
import { LABEL_FINGERPRINT } from '../../scripts/lib/delivery/build-job.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { inSession, startDaggerSimulator } from '../support/dagger-simulator/index.ts';
import type { DaggerSimulator } from '../support/dagger-simulator/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { startLocalRegistry } from '../support/local-registry.ts';
import type { LocalRegistry } from '../support/local-registry.ts';
import { runScript } from '../support/platform-repo.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../support/mock-sigstore.ts';

const EXAMPLE = join(import.meta.dirname, '../../examples/platform');
const mod = new Pharos();
let sim: DaggerSimulator;
let registry: LocalRegistry;
let s: Scenario;
let prefix: string;
let work: string;
const pulled: string[] = [];

const source = () => dag.host().directory(work);
const split = (ref: string) => {
  const at = ref.indexOf('@');
  return { repository: ref.slice(registry.host.length + 1, at), digest: ref.slice(at + 1) };
};

beforeAll(async () => {
  await ensureBaseImage();
  [sim, registry, s] = await Promise.all([startDaggerSimulator(), startLocalRegistry(), makeScenario()]);
  // A path of our own under the shared registry host keeps parallel runs apart.
  prefix = `${registry.host}/dagger-${Math.random().toString(36).slice(2, 8)}`;
  work = s.repo.work;
  await cp(EXAMPLE, work, { recursive: true });
  await s.repo.git(['add', '-A']);
  await s.repo.git(['commit', '--quiet', '-m', 'the example platform']);
  await s.repo.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
});
afterAll(async () => {
  for (const ref of pulled) await exec('docker', ['rmi', ref]);
  await sim?.stop();
  await registry?.stop();
  await s?.repo.cleanup();
});

describe('publish', () => {
  it('pushes by digest: the answer is the registry manifest digest, and docker pull of it gets the labelled image', async () => {
    const ref = await inSession(sim, () => mod.publish(source(), 'api', prefix));
    expect(ref).toMatch(new RegExp(`^${prefix.replace(/\./g, '\\.')}/pharos/api@sha256:[0-9a-f]{64}$`));
    const { repository, digest } = split(ref);
    expect(await registry.digest(repository, digest)).toBe(digest);
    const fingerprint = JSON.parse(await inSession(sim, () => mod.fingerprint(source()))).images.api.fingerprint;
    expect(await registry.digest(repository, fingerprint)).toBe(digest); // tagged with its fingerprint too
    const pull = await exec('docker', ['pull', ref]);
    expect(pull.code, pull.stderr).toBe(0);
    pulled.push(ref);
    const label = await exec('docker', [
      'image',
      'inspect',
      '--format',
      `{{index .Config.Labels "${LABEL_FINGERPRINT}"}}`,
      ref,
    ]);
    expect(label.stdout.toString('utf8').trim()).toBe(fingerprint);
  });
});

describe('buildChanged and releaseLock', () => {
  let all: Record<string, string>;
  let fingerprints: Record<string, { fingerprint: string }>;

  it('without a receipt builds and pushes every catalogue image, in parallel, each digest the registry holds', async () => {
    all = JSON.parse(await inSession(sim, () => mod.buildChanged(source(), prefix)));
    expect(Object.keys(all).sort()).toEqual(['api', 'compat-admin', 'compat-web', 'migrate', 'worker']);
    for (const ref of Object.values(all)) {
      const { repository, digest } = split(ref);
      expect(await registry.digest(repository, digest)).toBe(digest);
    }
  });

  it('releaseLock signs a schema-1 lock of those pushes that the host verifier accepts', async () => {
    const commit = await s.repo.git(['rev-parse', 'HEAD']);
    await s.repo.tag('v3.0.0', commit);
    const built = join(s.repo.root, 'built.json');
    await writeFile(built, JSON.stringify(all));
    const out = join(s.repo.root, 'lock-out');
    const pem = await readFile(s.key, 'utf8');
    await inSession(sim, async () => {
      const locks = await mod.releaseLock(
        source(),
        'v3.0.0',
        commit,
        dag.host().file(built),
        dag.setSecret('release-key', pem),
      );
      await locks.export(out);
    });
    const lock = JSON.parse(await readFile(join(out, 'release-v3.0.0.json'), 'utf8'));
    expect(lock).toMatchObject({ schemaVersion: 1, release: 'v3.0.0', commit });
    expect(lock.images.HEPHAESTUS_IMAGE_API).toBe(all.api);
    expect(lock.images.HEPHAESTUS_IMAGE_COMPAT_WEB).toBe(all['compat-web']);
    await s.tamper({
      'locks/release-v3.0.0.json': await readFile(join(out, 'release-v3.0.0.json')),
      'locks/release-v3.0.0.json.sigstore.json': await readFile(join(out, 'release-v3.0.0.json.sigstore.json')),
    });
    const hostRoot = s.hostRoot('dagger');
    const env = join(hostRoot, 'release-locks', 'v3.0.0.env');
    await mkdir(join(s.repo.root, 'etc-dagger'), { recursive: true });
    const verified = await runScript('prepare-release-lock.ts', ['v3.0.0', commit, env], {
      HEPHAESTUS_CHANNEL: 'production',
      HEPHAESTUS_REPOSITORY: s.repo.remote,
      HEPHAESTUS_TRUSTED_KEYS: s.pub,
      HEPHAESTUS_ROOT: hostRoot,
      HEPHAESTUS_ETC: join(s.repo.root, 'etc-dagger'),
    });
    expect(verified.code, verified.stderr).toBe(0);
    const text = await readFile(env, 'utf8');
    for (const [variable, ref] of [
      ['HEPHAESTUS_IMAGE_API', all.api],
      ['HEPHAESTUS_IMAGE_WORKER', all.worker],
      ['HEPHAESTUS_IMAGE_MIGRATE', all.migrate],
    ] as const) {
      expect(text).toContain(`${variable}=${ref}\n`);
    }
  });

  it('releaseLock signs keyless with the CI identity (offline Fulcio and Rekor) and a host pinned to that identity accepts it', async () => {
    const RELEASE = 'https://github.com/acme/platform/.github/workflows/release.yml@refs/tags/v3.1.0';
    const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
    const mock = await startMockSigstore();
    try {
      const commit = await s.repo.git(['rev-parse', 'HEAD']);
      await s.repo.tag('v3.1.0', commit);
      const built = join(s.repo.root, 'built.json');
      const out = join(s.repo.root, 'lock-keyless');
      await inSession(sim, async () => {
        const locks = await mod.releaseLock(
          source(),
          'v3.1.0',
          commit,
          dag.host().file(built),
          undefined,
          dag.setSecret('oidc', mock.token(RELEASE, GITHUB_ISSUER)),
          mock.fulcioURL,
          mock.rekorURL,
        );
        await locks.export(out);
      });
      await s.tamper({
        'locks/release-v3.1.0.json': await readFile(join(out, 'release-v3.1.0.json')),
        'locks/release-v3.1.0.json.sigstore.json': await readFile(join(out, 'release-v3.1.0.json.sigstore.json')),
      });
      const root = join(s.repo.root, 'trusted_root.json');
      await writeFile(root, mock.trustedRoot);
      const hostRoot = s.hostRoot('dagger-keyless');
      const env = join(hostRoot, 'release-locks', 'v3.1.0.env');
      await mkdir(join(s.repo.root, 'etc-dagger-keyless'), { recursive: true });
      const verified = await runScript('prepare-release-lock.ts', ['v3.1.0', commit, env], {
        HEPHAESTUS_CHANNEL: 'production',
        HEPHAESTUS_REPOSITORY: s.repo.remote,
        HEPHAESTUS_TRUSTED_KEYS: '',
        HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE,
        HEPHAESTUS_RELEASE_IDENTITY: RELEASE,
        HEPHAESTUS_OIDC_ISSUER: GITHUB_ISSUER,
        HEPHAESTUS_TRUSTED_ROOT: root,
        HEPHAESTUS_ROOT: hostRoot,
        HEPHAESTUS_ETC: join(s.repo.root, 'etc-dagger-keyless'),
      });
      expect(verified.code, verified.stderr).toBe(0);
      expect(await readFile(env, 'utf8')).toContain(`HEPHAESTUS_IMAGE_API=${all.api}\n`);
    } finally {
      await mock.close();
    }
  });

  it('releaseLock wants exactly one of a key and an OIDC token', async () => {
    const commit = await s.repo.git(['rev-parse', 'HEAD']);
    await expect(
      inSession(sim, () =>
        mod.releaseLock(source(), 'v3.0.0', commit, dag.host().file(join(s.repo.root, 'built.json'))),
      ),
    ).rejects.toMatchObject({
      code: 'bad-argument',
      message: expect.stringMatching(/^Invalid arguments "key" and "oidcToken": pass exactly one/),
    });
  });

  it('with a receipt builds exactly the images whose inputs hold the one changed file in contracts/', async () => {
    fingerprints = JSON.parse(await inSession(sim, () => mod.fingerprint(source()))).images;
    const receipt = join(s.repo.root, 'receipt.json');
    const images = Object.fromEntries(
      Object.entries(all).map(([name, reference]) => [
        name,
        { fingerprint: fingerprints[name]?.fingerprint, reference },
      ]),
    );
    await writeFile(
      receipt,
      JSON.stringify({
        schema: 1,
        commit: await s.repo.git(['rev-parse', 'HEAD']),
        delivered: new Date().toISOString(),
        images,
      }),
    );
    await writeFile(
      join(work, 'contracts/api.json'),
      `${(await readFile(join(work, 'contracts/api.json'), 'utf8')).trimEnd()}\n\n`,
    );
    await s.repo.git(['commit', '--quiet', '-am', 'one contract change']);
    const changed = JSON.parse(
      await inSession(sim, () => mod.buildChanged(source(), prefix, dag.host().file(receipt))),
    );
    expect(Object.keys(changed).sort()).toEqual(['api', 'migrate', 'worker']);
    expect(changed.api).not.toBe(all.api);
  });

  it('with the last release lock instead, reads the fingerprint labels of the images it pins and builds the same three', async () => {
    const lock = join(s.repo.root, 'lock-out', 'release-v3.0.0.json');
    const changed = JSON.parse(
      await inSession(sim, () => mod.buildChanged(source(), prefix, undefined, dag.host().file(lock))),
    );
    expect(Object.keys(changed).sort()).toEqual(['api', 'migrate', 'worker']);
  });

  it('a receipt and a lock together are refused', async () => {
    const lock = dag.host().file(join(s.repo.root, 'lock-out', 'release-v3.0.0.json'));
    await expect(inSession(sim, () => mod.buildChanged(source(), prefix, lock, lock))).rejects.toThrow(
      'Invalid arguments "receipt" and "lock": pass at most one',
    );
  });

  it('with a receipt of the current fingerprints builds nothing', async () => {
    const now = JSON.parse(await inSession(sim, () => mod.fingerprint(source()))).images as Record<
      string,
      { fingerprint: string }
    >;
    const receipt = join(s.repo.root, 'receipt-now.json');
    const images = Object.fromEntries(
      Object.entries(all).map(([name, reference]) => [name, { fingerprint: now[name]?.fingerprint, reference }]),
    );
    await writeFile(
      receipt,
      JSON.stringify({
        schema: 1,
        commit: await s.repo.git(['rev-parse', 'HEAD']),
        delivered: new Date().toISOString(),
        images,
      }),
    );
    const builds = sim.queries.filter((q) => q.includes('dockerBuild')).length;
    expect(
      JSON.parse(await inSession(sim, () => mod.buildChanged(source(), prefix, dag.host().file(receipt)))),
    ).toEqual({});
    expect(sim.queries.filter((q) => q.includes('dockerBuild')).length).toBe(builds);
  });

  it('a receipt that is not a receipt is refused naming the bad field', async () => {
    const receipt = join(s.repo.root, 'receipt-bad.json');
    await writeFile(
      receipt,
      JSON.stringify({ schema: 1, commit: 'abc', delivered: new Date().toISOString(), images: {} }),
    );
    await expect(inSession(sim, () => mod.buildChanged(source(), prefix, dag.host().file(receipt)))).rejects.toThrow(
      /^Invalid argument "receipt":\nreceipt-bad\.json: commit: must be a 40-hex commit/,
    );
  });
});
