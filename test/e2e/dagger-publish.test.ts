// Pushes through the Dagger module, run in its runtime layout (engine simulator), to the real local registry, and
// the release lock a real host verifier accepts.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_IMAGE } from '../../dagger/src/git-in-container.ts';
import { LABEL_FINGERPRINT } from '../../scripts/lib/delivery/build-job.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { ensureGitImage, inSession, loadModule, startDaggerSimulator } from '../support/dagger-simulator/index.ts';
import type { DaggerSimulator, ModuleRuntime } from '../support/dagger-simulator/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { startLocalRegistry } from '../support/local-registry.ts';
import type { LocalRegistry } from '../support/local-registry.ts';
import { runScript } from '../support/platform-repo.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../support/mock-sigstore.ts';

const EXAMPLE = join(import.meta.dirname, '../../examples/platform');
let sim: DaggerSimulator;
let mod: ModuleRuntime;
let registry: LocalRegistry;
let s: Scenario;
let prefix: string;
let work: string;
const pulled: string[] = [];

const split = (ref: string) => {
  const at = ref.indexOf('@');
  return { repository: ref.slice(registry.host.length + 1, at), digest: ref.slice(at + 1) };
};
const fingerprints = async (): Promise<Record<string, { fingerprint: string }>> =>
  JSON.parse((await runScript('fingerprint.ts', ['--repo', work, '--json'])).stdout.toString('utf8')).images;
const receiptOf = async (file: string, all: Record<string, string>) => {
  const now = await fingerprints();
  const images = Object.fromEntries(
    Object.entries(all).map(([name, reference]) => [name, { fingerprint: now[name]?.fingerprint, reference }]),
  );
  const commit = await s.repo.git(['rev-parse', 'HEAD']);
  await writeFile(file, JSON.stringify({ schema: 1, commit, delivered: new Date().toISOString(), images }));
  return mod.file(file);
};

beforeAll(async () => {
  await Promise.all([ensureBaseImage(), ensureGitImage(GIT_IMAGE)]);
  [sim, registry, s] = await Promise.all([startDaggerSimulator(), startLocalRegistry(), makeScenario()]);
  // A path of our own under the shared registry host keeps parallel runs apart.
  prefix = `${registry.host}/dagger-${Math.random().toString(36).slice(2, 8)}`;
  work = s.repo.work;
  await cp(EXAMPLE, work, { recursive: true });
  await s.repo.git(['add', '-A']);
  await s.repo.git(['commit', '--quiet', '-m', 'the example platform']);
  await s.repo.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
  mod = await loadModule(sim, work);
});
afterAll(async () => {
  for (const ref of pulled) await exec('docker', ['rmi', ref]);
  await sim?.stop();
  await registry?.stop();
  await s?.repo.cleanup();
});

describe('publish', () => {
  it('pushes by digest (the registry manifest digest, tagged with the fingerprint); a repeat of a changed image pushes again', async () => {
    const source = mod.directory(work);
    const args = { source, image: 'compat-web', registry: prefix };
    const ref = String(await mod.call('publish', args));
    expect(ref).toMatch(new RegExp(`^${prefix.replace(/\./g, '\\.')}/pharos/compat-web@sha256:[0-9a-f]{64}$`));
    const { repository, digest } = split(ref);
    const fingerprint = (await fingerprints())['compat-web']?.fingerprint ?? '';
    expect(await registry.digest(repository, digest)).toBe(digest);
    expect(await registry.digest(repository, fingerprint)).toBe(digest);
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

    // The same call again, the folder behind the same Directory changed: "never" runs it, so it pushes the new image.
    const file = join(work, 'apps/compat/src/run.sh');
    await writeFile(file, `${await readFile(file, 'utf8')}# changed\n`);
    const runs = mod.runs;
    const again = String(await mod.call('publish', args));
    expect(mod.runs).toBe(runs + 1);
    expect(again).not.toBe(ref);
    expect(await registry.digest(repository, split(again).digest)).toBe(split(again).digest);
    await s.repo.git(['commit', '--quiet', '-am', 'compat page changed']);
  });
});

describe('buildChanged and releaseLock', () => {
  let all: Record<string, string>;

  it('without a receipt builds and pushes every catalogue image, each digest the registry holds', async () => {
    all = JSON.parse(String(await mod.call('build-changed', { source: mod.directory(work), registry: prefix })));
    expect(Object.keys(all).sort()).toEqual(['api', 'compat-admin', 'compat-web', 'migrate', 'worker']);
    for (const ref of Object.values(all)) {
      const { repository, digest } = split(ref);
      expect(await registry.digest(repository, digest)).toBe(digest);
    }
  });

  it('releaseLock signs (with a key) a schema-1 lock of those pushes that the host verifier accepts', async () => {
    const commit = await s.repo.git(['rev-parse', 'HEAD']);
    await s.repo.tag('v3.0.0', commit);
    const built = join(s.repo.root, 'built.json');
    await writeFile(built, JSON.stringify(all));
    const out = join(s.repo.root, 'lock-out');
    const pem = await readFile(s.key, 'utf8');
    const id = await mod.call('release-lock', {
      source: mod.directory(work),
      release: 'v3.0.0',
      commit,
      built: mod.file(built),
      key: mod.secret('release-key', pem),
    });
    await inSession(sim, () => dagDirectory(String(id)).then((d) => d.export(out)));
    const lock = JSON.parse(await readFile(join(out, 'release-v3.0.0.json'), 'utf8'));
    expect(lock).toMatchObject({ schemaVersion: 1, release: 'v3.0.0', commit });
    expect(lock.images.HEPHAESTUS_IMAGE_API).toBe(all['api']);
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
    for (const name of ['api', 'worker', 'migrate'])
      expect(text).toContain(`HEPHAESTUS_IMAGE_${name.toUpperCase()}=${all[name]}\n`);
  });

  it('releaseLock signs keyless with the CI identity (offline Fulcio and Rekor) and a host pinned to it accepts it', async () => {
    const RELEASE = 'https://github.com/acme/platform/.github/workflows/release.yml@refs/tags/v3.1.0';
    const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
    const mock = await startMockSigstore();
    try {
      const commit = await s.repo.git(['rev-parse', 'HEAD']);
      await s.repo.tag('v3.1.0', commit);
      const out = join(s.repo.root, 'lock-keyless');
      const id = await mod.call('release-lock', {
        source: mod.directory(work),
        release: 'v3.1.0',
        commit,
        built: mod.file(join(s.repo.root, 'built.json')),
        oidcToken: mod.secret('oidc', mock.token(RELEASE, GITHUB_ISSUER)),
        fulcioUrl: mock.fulcioURL,
        rekorUrl: mock.rekorURL,
      });
      await inSession(sim, () => dagDirectory(String(id)).then((d) => d.export(out)));
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
      expect(await readFile(env, 'utf8')).toContain(`HEPHAESTUS_IMAGE_API=${all['api']}\n`);
    } finally {
      await mock.close();
    }
  });

  it('bad arguments: neither key nor token, a key that does not parse, a receipt that is not one', async () => {
    const commit = await s.repo.git(['rev-parse', 'HEAD']);
    const built = mod.file(join(s.repo.root, 'built.json'));
    const bad = join(s.repo.root, 'receipt-bad.json');
    await writeFile(bad, JSON.stringify({ schema: 1, commit: 'abc', delivered: new Date().toISOString(), images: {} }));
    const results = await Promise.allSettled([
      mod.call('release-lock', { source: mod.directory(work), release: 'v3.0.0', commit, built }),
      mod.call('release-lock', {
        source: mod.directory(work),
        release: 'v3.0.0',
        commit,
        built,
        key: mod.secret('release-key', 'not a key'),
      }),
      mod.call('build-changed', { source: mod.directory(work), registry: prefix, receipt: mod.file(bad) }),
    ]);
    const messages = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'fulfilled'));
    expect(messages[0]).toMatch(/^Invalid arguments "key" and "oidcToken": pass exactly one/);
    expect(messages[1]).toBe('Cannot read signing key "secret release-key": not a PEM private key');
    expect(messages[2]).toMatch(/^Invalid argument "receipt":\nreceipt-bad\.json: commit: must be a 40-hex commit/);
  });

  it('with a receipt, or the last release lock, builds exactly the images whose inputs hold the changed contract', async () => {
    const receipt = await receiptOf(join(s.repo.root, 'receipt.json'), all);
    await writeFile(
      join(work, 'contracts/api.json'),
      `${(await readFile(join(work, 'contracts/api.json'), 'utf8')).trimEnd()}\n\n`,
    );
    await s.repo.git(['commit', '--quiet', '-am', 'one contract change']);
    const lock = mod.file(join(s.repo.root, 'lock-out', 'release-v3.0.0.json'));
    const [byReceipt, byLock] = await Promise.all([
      mod.call('build-changed', { source: mod.directory(work), registry: prefix, receipt }),
      mod.call('build-changed', { source: mod.directory(work), registry: prefix, lock }),
    ]);
    expect(Object.keys(JSON.parse(String(byReceipt))).sort()).toEqual(['api', 'migrate', 'worker']);
    expect(Object.keys(JSON.parse(String(byLock))).sort()).toEqual(['api', 'migrate', 'worker']);
    expect(JSON.parse(String(byReceipt)).api).not.toBe(all['api']);
  });

  it('with a receipt of the current fingerprints builds nothing', async () => {
    const receipt = await receiptOf(join(s.repo.root, 'receipt-now.json'), all);
    const builds = sim.queries.filter((q) => q.includes('dockerBuild')).length;
    expect(
      JSON.parse(String(await mod.call('build-changed', { source: mod.directory(work), registry: prefix, receipt }))),
    ).toEqual({});
    expect(sim.queries.filter((q) => q.includes('dockerBuild')).length).toBe(builds);
  });
});

async function dagDirectory(id: string) {
  const { dag } = await import('@dagger.io/dagger');
  return dag.loadDirectoryFromID(id as never);
}
