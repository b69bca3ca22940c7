// Release locks end to end: --produce from a real commit's catalogue, publish on deploy-state, verify on a host into release-locks/<tag>.env.
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../scripts/lib/catalogue/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { runScript } from '../support/platform-repo.ts';

let s: Scenario;
let release: string;
let other: string;
let built: string;
let hostEnv: NodeJS.ProcessEnv;
const out = (name: string) => join(s.repo.root, 'out', name);

beforeAll(async () => {
  s = await makeScenario();
  const catalogue = join(s.repo.work, 'gitops/manifests/images.yaml');
  await mkdir(join(s.repo.work, 'gitops/manifests'), { recursive: true });
  await copyFile(join(import.meta.dirname, '../../examples/platform/gitops/manifests/images.yaml'), catalogue);
  await s.repo.git(['add', 'gitops']);
  release = await s.repo.commitOnMain('release 2.0.0 with catalogue');
  await s.repo.tag('v2.0.0', release);
  other = await s.repo.commitOnMain('release 2.1.0');
  await s.repo.tag('v2.1.0', other);
  const entries = parseCatalogue(await readFile(catalogue, 'utf8'), 'images.yaml').images;
  built = join(s.repo.root, 'built.json');
  await writeFile(
    built,
    JSON.stringify(
      Object.fromEntries(
        entries.map((e, i) => [e.name, `ghcr.io/acme/${e.image}@sha256:${String(i + 1).padStart(64, '0')}`]),
      ),
    ),
  );
  await mkdir(join(s.repo.root, 'out'), { recursive: true });
  hostEnv = {
    HEPHAESTUS_CHANNEL: 'production',
    HEPHAESTUS_REPOSITORY: s.repo.remote,
    HEPHAESTUS_TRUSTED_KEYS: s.pub,
    HEPHAESTUS_ROOT: s.hostRoot('lock'),
    HEPHAESTUS_ETC: join(s.repo.root, 'etc-lock'),
  };
});
afterAll(async () => {
  await s.repo.cleanup();
});

const produce = (args: readonly string[]) =>
  runScript('prepare-release-lock.ts', ['--produce', '--repo', s.repo.work, '--built', built, '--key', s.key, ...args]);
const verify = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  runScript('prepare-release-lock.ts', args, { ...hostEnv, ...env });

async function publish(name: string, from: string): Promise<void> {
  await s.tamper({
    [`locks/${name}`]: await readFile(from),
    [`locks/${name}.sigstore.json`]: await readFile(`${from}.sigstore.json`),
  });
}

describe('prepare-release-lock.ts', () => {
  it('produces a signed lock from the release commit and a host writes it as a 0600 env file', async () => {
    const produced = await produce(['--release', 'v2.0.0', '--commit', release, '--out', out('release-v2.0.0.json')]);
    expect(produced.code, produced.stderr).toBe(0);
    const lock = JSON.parse(await readFile(out('release-v2.0.0.json'), 'utf8'));
    expect(lock).toMatchObject({ schemaVersion: 1, release: 'v2.0.0', commit: release });
    expect(lock.images.HEPHAESTUS_IMAGE_API).toMatch(/^ghcr\.io\/acme\/pharos\/api@sha256:/);
    await publish('release-v2.0.0.json', out('release-v2.0.0.json'));
    const env = join(s.hostRoot('lock'), 'release-locks', 'v2.0.0.env');
    const verified = await verify(['v2.0.0', release, env]);
    expect(verified.code, verified.stderr).toBe(0);
    expect((await stat(env)).mode & 0o777).toBe(0o600);
    const text = await readFile(env, 'utf8');
    expect(text).toContain(`HEPHAESTUS_COMMIT=${release}\n`);
    expect(text).toContain(`HEPHAESTUS_IMAGE_API=${lock.images.HEPHAESTUS_IMAGE_API}\n`);
  });

  it("takes the pull-deployment document's form `<tag> <out>` and writes HEPHAESTUS_RELEASE_COMMIT, which its commands read", async () => {
    const env = join(s.hostRoot('lock'), 'tooling-update', 'lock.env');
    const verified = await verify(['v2.0.0', env]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(await readFile(env, 'utf8')).toContain(`HEPHAESTUS_RELEASE_COMMIT=${release}\n`);
  });

  it("refuses when the given commit is not the tag's commit, writing nothing", async () => {
    const env = join(s.hostRoot('lock'), 'release-locks', 'wrong.env');
    const refused = await verify(['v2.0.0', other, env]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/tag "v2\.0\.0" is commit/);
    await expect(stat(env)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("mix-and-match: v2.0.0's signed lock published as v2.1.0's is refused", async () => {
    await copyFile(out('release-v2.0.0.json'), out('release-v2.1.0.json'));
    await copyFile(out('release-v2.0.0.json.sigstore.json'), out('release-v2.1.0.json.sigstore.json'));
    await publish('release-v2.1.0.json', out('release-v2.1.0.json'));
    const refused = await verify(['v2.1.0', other, join(s.hostRoot('lock'), 'release-locks', 'v2.1.0.env')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/release "v2\.0\.0" is not the requested "v2\.1\.0"/);
  });

  it('refuses a lock edited after signing', async () => {
    const text = (await readFile(out('release-v2.0.0.json'), 'utf8')).replace(
      /sha256:0+1"/,
      `sha256:${'f'.repeat(64)}"`,
    );
    await s.tamper({ 'locks/release-v2.0.0.json': text });
    const refused = await verify(['v2.0.0', release, join(s.hostRoot('lock'), 'release-locks', 'edited.env')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\[signature\]/);
    await publish('release-v2.0.0.json', out('release-v2.0.0.json'));
  });

  it('fetches locks from HEPHAESTUS_RELEASE_URL instead of deploy-state', async () => {
    const files = new Map([
      ['/v2.0.0/release-v2.0.0.json', out('release-v2.0.0.json')],
      ['/v2.0.0/release-v2.0.0.json.sigstore.json', out('release-v2.0.0.json.sigstore.json')],
    ]);
    const server = createServer((req, res) => {
      const file = files.get(req.url ?? '');
      if (file === undefined) res.writeHead(404).end();
      else readFile(file).then((body) => res.writeHead(200).end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const env = join(s.hostRoot('lock'), 'release-locks', 'url.env');
      const verified = await verify(['v2.0.0', release, env], { HEPHAESTUS_RELEASE_URL: url });
      expect(verified.code, verified.stderr).toBe(0);
      expect(await readFile(env, 'utf8')).toContain('HEPHAESTUS_RELEASE=v2.0.0');
    } finally {
      server.close();
    }
  });

  it('produces and verifies a joint chart lock', async () => {
    const chart = join(s.repo.root, 'chart.json');
    await writeFile(
      chart,
      JSON.stringify({
        name: 'hephaestus',
        version: '2.0.0',
        reference: `oci://ghcr.io/acme/charts/hephaestus@sha256:${'c'.repeat(64)}`,
      }),
    );
    const produced = await produce([
      '--release',
      'v2.0.0',
      '--commit',
      release,
      '--chart',
      chart,
      '--out',
      out('release-v2.0.0.chart.json'),
    ]);
    expect(produced.code, produced.stderr).toBe(0);
    await publish('release-v2.0.0.chart.json', out('release-v2.0.0.chart.json'));
    const env = join(s.hostRoot('lock'), 'release-locks', 'chart.env');
    const verified = await verify(['v2.0.0', release, env], { HEPHAESTUS_STACKS: 'chart' });
    expect(verified.code, verified.stderr).toBe(0);
    expect(await readFile(env, 'utf8')).toContain(
      'HEPHAESTUS_CHART_REFERENCE=oci://ghcr.io/acme/charts/hephaestus@sha256:',
    );
  });

  it('refuses to produce a lock when a catalogue image has no built digest: an input error, exit 2', async () => {
    const partial = join(s.repo.root, 'partial.json');
    const all = JSON.parse(await readFile(built, 'utf8'));
    delete all.worker;
    await writeFile(partial, JSON.stringify(all));
    const refused = await runScript('prepare-release-lock.ts', [
      '--produce',
      '--repo',
      s.repo.work,
      '--built',
      partial,
      '--release',
      'v2.0.0',
      '--commit',
      release,
      '--out',
      out('partial.json'),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no built digest for catalogue image "worker"/);
  });
});
