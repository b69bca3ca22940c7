// The Dagger module through the real @dagger.io/dagger SDK against the engine simulator, on the real Docker Engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '@dagger.io/dagger';
import { Pharos } from '../../dagger/src/index.ts';
import { LABEL_FINGERPRINT } from '../../scripts/lib/devbox/build-job.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { inSession, startDaggerSimulator } from '../support/dagger-simulator/index.ts';
import type { DaggerSimulator } from '../support/dagger-simulator/index.ts';
import { makePlatformRepo } from '../support/devbox/platform-repo.ts';
import type { PlatformRepo } from '../support/devbox/platform-repo.ts';
import { runScript } from '../support/platform-repo.ts';

let sim: DaggerSimulator;
let repo: PlatformRepo;
const mod = new Pharos();

beforeAll(async () => {
  await ensureBaseImage();
  [sim, repo] = await Promise.all([startDaggerSimulator(), makePlatformRepo()]);
});
afterAll(async () => {
  await sim?.stop();
  await repo?.remove();
});

describe('fingerprint', () => {
  it('through Dagger equals scripts/fingerprint.ts --rev --json for the same commit', async () => {
    const head = await repo.git('rev-parse', 'HEAD');
    const viaDagger = await inSession(sim, () => mod.fingerprint(dag.host().directory(repo.dir), head));
    const viaScript = await runScript('fingerprint.ts', ['--repo', repo.dir, '--rev', head, '--json']);
    expect(viaScript.code, viaScript.stderr).toBe(0);
    expect(viaDagger).toBe(viaScript.stdout.toString('utf8'));
    expect(JSON.parse(viaDagger)).toMatchObject({ schema: 1, images: { api: { fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) } } });
  });
});

describe('build', () => {
  it('builds the catalogue entry into an image labelled with its fingerprint and commit, which runs', async () => {
    const head = await repo.git('rev-parse', 'HEAD');
    const expected = JSON.parse(await inSession(sim, () => mod.fingerprint(dag.host().directory(repo.dir)))).images['compat-web'].fingerprint;
    const [fingerprint, commit, out] = await inSession(sim, async () => {
      const image = await mod.build(dag.host().directory(repo.dir), 'compat-web');
      return Promise.all([image.label(LABEL_FINGERPRINT), image.label('pharos.dev/commit'), image.withExec(['cat', '/app/build.txt']).stdout()]);
    });
    expect(fingerprint).toBe(expected);
    expect(commit).toBe(head);
    expect(out).toMatch(/realtime-gateway/);
  });
});
