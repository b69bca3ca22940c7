// Dagger module benchmarks (issue 11): buildChanged through the real SDK against the engine simulator, as ratios
// to baselines measured in the same run. The module runs through the SDK's entrypoint in the runtime's layout (loadModule).
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GIT_IMAGE } from '../../dagger/src/git-in-container.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import { ensureGitImage, loadModule, startDaggerSimulator } from '../support/dagger-simulator/index.ts';
import { makePlatformRepo } from '../support/devbox/platform-repo.ts';
import { startLocalRegistry } from '../support/local-registry.ts';
import { interleaved, ratioLine, run } from './support/measure.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The module runs as Dagger's TypeScript runtime runs it: the SDK's entrypoint in the runtime's layout.
await Promise.all([ensureBaseImage(), ensureGitImage(GIT_IMAGE)]);
const [sim, registry, repo] = await Promise.all([startDaggerSimulator(), startLocalRegistry(), makePlatformRepo()]);
const prefix = `${registry.host}/bench-${Math.random().toString(36).slice(2, 8)}`;
const mod = await loadModule(sim, repo.dir);
const source = () => mod.directory(repo.dir);
const NODE = process.execPath;
try {
  const built = JSON.parse(String(await mod.call('build-changed', { source: source(), registry: prefix }))) as Record<
    string,
    string
  >;
  const fingerprints = JSON.parse(String(await mod.call('fingerprint', { source: source() }))).images as Record<
    string,
    { fingerprint: string }
  >;
  const receipt = join(repo.dir, '..', 'receipt.json');
  const images = Object.fromEntries(
    Object.entries(built).map(([name, reference]) => [
      name,
      { fingerprint: fingerprints[name]?.fingerprint, reference },
    ]),
  );
  writeFileSync(
    receipt,
    JSON.stringify({
      schema: 1,
      commit: await repo.git('rev-parse', 'HEAD'),
      delivered: new Date().toISOString(),
      images,
    }),
  );
  const changed = async () =>
    JSON.parse(
      String(await mod.call('build-changed', { source: source(), registry: prefix, receipt: mod.file(receipt) })),
    );

  const [noChange, warmFingerprint] = await interleaved(
    [changed, () => run(NODE, [join(ROOT, 'scripts/fingerprint.ts'), '--repo', repo.dir])],
    { runs: 9 },
  );

  // Each run edits a file only the api image reads, so exactly one image is rebuilt and pushed. The three are
  // interleaved run by run: on a shared machine the load drifts more between blocks of runs than within one round.
  // Unique per run: Docker's layer cache outlives the run and would answer an edit it has seen before.
  let edit = 0;
  const runId = `${process.pid}-${Date.now()}`;
  const touchApi = () => appendFileSync(join(repo.dir, 'services/api/src/serve.sh'), `# edit ${runId} ${edit++}\n`);
  const tag = `${prefix}/baseline-api:latest`;
  const dockerEnv = { ...process.env, DOCKER_BUILDKIT: '0' };
  const [oneChanged, dockerBuild, buildAndPush] = await interleaved(
    [
      async () => {
        const pushed = await changed();
        if (Object.keys(pushed).join() !== 'api')
          throw new Error(`expected only api to be built, got ${Object.keys(pushed).join()}`);
      },
      () =>
        run('docker', ['build', '--quiet', '-f', 'services/api/Dockerfile', '-t', tag, '.'], {
          cwd: repo.dir,
          env: dockerEnv,
        }),
      () => {
        run('docker', ['build', '--quiet', '-f', 'services/api/Dockerfile', '-t', tag, '.'], {
          cwd: repo.dir,
          env: dockerEnv,
        });
        run('docker', ['push', tag]);
      },
    ],
    { runs: 7, before: touchApi },
  );
  run('docker', ['rmi', tag]);

  process.stdout.write(
    [
      ratioLine(
        'buildChanged, one changed image (build+push)',
        oneChanged,
        dockerBuild,
        'docker build of that image',
        '<= 1.3x',
      ),
      ratioLine(
        'buildChanged, one changed image (build+push)',
        oneChanged,
        buildAndPush,
        'docker build + docker push of it',
      ),
      ratioLine('buildChanged, nothing changed', noChange, warmFingerprint, 'warm scripts/fingerprint.ts', '<= 2x'),
    ].join('\n') + '\n',
  );
} finally {
  await sim.stop();
  await registry.stop();
  await repo.remove();
}
