// The Dagger module through the real @dagger.io/dagger SDK against the engine simulator, on the real Docker Engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '@dagger.io/dagger';
import { Pharos } from '../../dagger/src/index.ts';
import { LABEL_FINGERPRINT } from '../../scripts/lib/devbox/build-job.ts';
import { inSession, startDaggerLab } from '../support/dagger-simulator/index.ts';
import type { DaggerLab, DaggerSimulator } from '../support/dagger-simulator/index.ts';
import type { PlatformRepo } from '../support/devbox/platform-repo.ts';
import { runScript } from '../support/platform-repo.ts';
import { tempRepo } from '../support/temp-repo.ts';
import { appendFile, cp } from 'node:fs/promises';
import { join } from 'node:path';

let sim: DaggerSimulator;
let repo: PlatformRepo;
const mod = new Pharos();

let lab: DaggerLab | undefined;

beforeAll(async () => {
  lab = await startDaggerLab();
  ({ sim, repo } = lab);
});
afterAll(() => lab?.stop());

describe('fingerprint', () => {
  it('through Dagger equals scripts/fingerprint.ts --rev --json for the same commit', async () => {
    const head = await repo.git('rev-parse', 'HEAD');
    const viaDagger = await inSession(sim, () => mod.fingerprint(dag.host().directory(repo.dir), head));
    const viaScript = await runScript('fingerprint.ts', ['--repo', repo.dir, '--rev', head, '--json']);
    expect(viaScript.code, viaScript.stderr).toBe(0);
    expect(viaDagger).toBe(viaScript.stdout.toString('utf8'));
    expect(JSON.parse(viaDagger)).toMatchObject({
      schema: 1,
      images: { api: { fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) } },
    });
  });
});

describe('build', () => {
  it('builds the catalogue entry into an image labelled with its fingerprint and commit, which runs', async () => {
    const head = await repo.git('rev-parse', 'HEAD');
    const expected = JSON.parse(await inSession(sim, () => mod.fingerprint(dag.host().directory(repo.dir)))).images[
      'compat-web'
    ].fingerprint;
    const [fingerprint, commit, out] = await inSession(sim, async () => {
      const image = await mod.build(dag.host().directory(repo.dir), 'compat-web');
      return Promise.all([
        image.label(LABEL_FINGERPRINT),
        image.label('pharos.dev/commit'),
        image.withExec(['cat', '/app/build.txt']).stdout(),
      ]);
    });
    expect(fingerprint).toBe(expected);
    expect(commit).toBe(head);
    expect(out).toMatch(/realtime-gateway/);
  });

  it("builds the entry's target stage with the platform's Dockerfile, and its commands run in the image's WORKDIR", async () => {
    const [pwd, files] = await inSession(sim, async () => {
      const image = await mod.build(dag.host().directory(repo.dir), 'migrate');
      return Promise.all([image.withExec(['sh', '-c', 'pwd']).stdout(), image.withExec(['ls']).stdout()]);
    });
    expect(pwd).toBe('/app\n');
    expect(files.split('\n')).toContain('migrate.sh');
    expect(files.split('\n')).not.toContain('src'); // the worker stage's files are not in the migrate target
  });
});

describe('check', () => {
  it('returns the catalogue check as the JSON scripts/check-platform-gitops.ts --json prints', async () => {
    const viaDagger = await inSession(sim, () => mod.check(dag.host().directory(repo.dir)));
    const viaScript = await runScript('check-platform-gitops.ts', ['--repo', repo.dir, '--json']);
    expect(viaDagger).toBe(viaScript.stdout.toString('utf8'));
    expect(JSON.parse(viaDagger).findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);
  });

  it('the @check function passes on the example platform and fails naming the rule when a Dockerfile reads outside its inputs', async () => {
    await inSession(sim, () => mod.catalogueCheck(dag.host().directory(repo.dir)));
    const broken = tempRepo();
    try {
      await cp(repo.dir, broken.dir, { recursive: true });
      await appendFile(join(broken.dir, 'services/api/Dockerfile'), 'COPY apps/ /x/\n');
      await expect(inSession(sim, () => mod.catalogueCheck(dag.host().directory(broken.dir)))).rejects.toMatchObject({
        code: 'check-failed',
        message: expect.stringMatching(/copy-outside-inputs COPY source "apps\/"/),
      });
    } finally {
      broken.remove();
    }
  });
});

describe('bad input is one clear error naming it', () => {
  it('an unknown image name', async () => {
    await expect(inSession(sim, () => mod.build(dag.host().directory(repo.dir), 'nope'))).rejects.toMatchObject({
      code: 'bad-argument',
      message: expect.stringMatching(
        /^Invalid argument "image" "nope": gitops\/manifests\/images\.yaml has no such entry \(known: .*api/,
      ),
    });
    await expect(inSession(sim, () => mod.build(dag.host().directory(repo.dir), 'Not_A_Name'))).rejects.toThrow(
      /^Invalid argument "image" "Not_A_Name": must be a catalogue name/,
    );
  });

  it('a source without a catalogue', async () => {
    const empty = tempRepo({ 'README.md': 'no catalogue here\n' });
    try {
      empty.commit();
      await expect(inSession(sim, () => mod.fingerprint(dag.host().directory(empty.dir)))).rejects.toMatchObject({
        code: 'missing-catalogue',
        message: expect.stringMatching(/^Cannot load catalogue: "gitops\/manifests\/images\.yaml" is not in/),
      });
    } finally {
      empty.remove();
    }
  });

  it('an unreachable registry', async () => {
    await expect(
      inSession(sim, () => mod.publish(dag.host().directory(repo.dir), 'compat-web', '127.0.0.1:9')),
    ).rejects.toMatchObject({
      code: 'publish-failed',
      message: expect.stringMatching(/^Cannot publish image "compat-web" to "127\.0\.0\.1:9": .*(refused|connect)/),
    });
    await expect(
      inSession(sim, () => mod.publish(dag.host().directory(repo.dir), 'api', 'https://ghcr.io')),
    ).rejects.toThrow(/^Invalid argument "registry" "https:\/\/ghcr\.io": must be/);
  });

  it('a signing key that does not parse', async () => {
    const head = await repo.git('rev-parse', 'HEAD');
    await expect(
      inSession(sim, () =>
        mod.releaseLock(
          dag.host().directory(repo.dir),
          'v1.0.0',
          head,
          dag.directory().withNewFile('built.json', '{}').file('built.json'),
          dag.setSecret('release-key', 'not a key'),
        ),
      ),
    ).rejects.toMatchObject({
      code: 'trust-config',
      message: 'Cannot read signing key "secret release-key": not a PEM private key',
    });
  });

  it('a release that is not vX.Y.Z, before anything is read', async () => {
    await expect(
      inSession(sim, () =>
        mod.releaseLock(
          dag.host().directory(repo.dir),
          '1.0',
          'HEAD',
          dag.directory().withNewFile('built.json', '{}').file('built.json'),
          dag.setSecret('k', 'x'),
        ),
      ),
    ).rejects.toThrow('Cannot produce lock: release "1.0" is not vX.Y.Z');
  });
});
