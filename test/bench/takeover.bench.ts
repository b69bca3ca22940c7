// Takeover benchmarks (issue 7): API requests and time for acquire, one renewal and hand-back against the test
// Kubernetes API server and the Argo CD simulator; `takeover plan` on the 50,000-file repository as a ratio to
// `git status`. Ratios against baselines measured in the same run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { realSizeRepo } from './support/real-size-repo.ts';
import { interleaved, ratioLine, run, timeIt } from './support/measure.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import { loadTargetProfile } from '../../scripts/lib/target/target-profile.ts';
import { writeReceipt } from '../../scripts/lib/target/receipt.ts';
import { targetStatePaths } from '../../scripts/lib/target/state-paths.ts';
import {
  fingerprintImages,
  loadCatalogue,
  openGitTreeSource,
  resolveCommit,
} from '../../scripts/lib/fingerprint/index.ts';
import { gitPort } from '../../scripts/lib/ports/git.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import {
  makeTakeoverContext,
  planTakeover,
  resolveWorkloads,
  RUNTIMES,
  startSession,
} from '../../scripts/lib/takeover/index.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = process.execPath;
const TAKEOVER = join(ROOT, 'scripts/takeover.ts');

// --- acquire, renewal, hand-back ---------------------------------------------------------------------------
const t = await startTestTarget({ syncTimeout: '30s' });
t.sim.start(20);
const kube = kubeFromConfig(t.server.kubeConfig());
const ctx = await makeTakeoverContext({
  profile: t.profile,
  kube,
  checkout: t.repo.dir,
  clock: t.clock,
  log: () => {},
  pollMs: 10,
});
const { catalogue } = await planTakeover({ checkout: t.repo.dir, receipt: t.receipt, runtimes: Object.keys(RUNTIMES) });
const targets = await resolveWorkloads(kube, 'argocd', catalogue, t.receipt, ['compat-web']);
const counts = { acquire: [] as number[], renew: [] as number[], handBack: [] as number[] };
const times = { acquire: [] as number[], renew: [] as number[], handBack: [] as number[] };
const oneRequest = await timeIt(() => kube.get('ConfigMap', 'argocd', t.profile.ownership), { runs: 21 });
for (let i = 0; i < 7; i++) {
  let before = kube.requestCount();
  let start = performance.now();
  // Acquire alone: startSession's replacement and runtime follow it, so they are measured with a no-op port below.
  const session = await startSession(
    {
      ...ctx,
      replacement: {
        name: 'none',
        replace: async (w, lease) => ({ workload: w, lease, replicas: 1 }),
        restore: async () => false,
        find: async () => [],
      },
      runtimes: {
        native: {
          name: 'none',
          start: async (r) => ({ image: r.image, pid: 0, command: [] }),
          stop: async () => false,
          running: async () => false,
        },
      },
    },
    t.receipt,
    catalogue,
    targets,
  );
  times.acquire.push(performance.now() - start);
  counts.acquire.push(kube.requestCount() - before);
  t.clock.advance(5 * 60_000); // renewal interval: expires and the window's duration both move
  before = kube.requestCount();
  start = performance.now();
  const renewed = await session.renew();
  if (renewed.kind !== 'renewed') throw new Error(`renewal failed: ${renewed.reason}`);
  times.renew.push(performance.now() - start);
  counts.renew.push(kube.requestCount() - before);
  before = kube.requestCount();
  start = performance.now();
  await session.handBack();
  times.handBack.push(performance.now() - start);
  counts.handBack.push(kube.requestCount() - before);
  t.clock.advance(1000); // a new acquire second: a new lease
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const timed = (xs: number[]) => ({ median: median(xs), runs: xs });
process.stdout.write(`takeover: API requests per phase (median of 7; acquire excludes the workload replacement)\n`);
process.stdout.write(`  acquire    ${median(counts.acquire)} requests  (target <= 6)   ${counts.acquire.join(' ')}\n`);
process.stdout.write(`  renewal    ${median(counts.renew)} requests  (target <= 2)   ${counts.renew.join(' ')}\n`);
process.stdout.write(
  `  hand-back  ${median(counts.handBack)} requests (includes polling until Synced and Healthy)   ${counts.handBack.join(' ')}\n`,
);
process.stdout.write(`${ratioLine('acquire', timed(times.acquire), oneRequest, 'one API request')}\n`);
process.stdout.write(`${ratioLine('renewal', timed(times.renew), oneRequest, 'one API request')}\n`);
process.stdout.write(
  `${ratioLine('hand-back (with Argo CD simulator settling)', timed(times.handBack), oneRequest, 'one API request')}\n`,
);
await t.stop();

// --- takeover plan on the 50,000-file repository with real source-tree sizes (BENCH_QUICK=1: 5,000 files) ------
const repo = realSizeRepo(process.env.BENCH_QUICK === '1' ? 5_000 : 50_000);
const dir = repo.dir;
const work = mkdtempSync(join(tmpdir(), 'pharos-takeover-bench-'));
try {
  const cluster = await startTestTarget();
  const targetsDir = join(work, 'targets');
  mkdirSync(targetsDir);
  writeFileSync(
    join(targetsDir, 'bench.yaml'),
    stringify({
      schema: 1,
      kube: { kubeconfig: join(work, 'kubeconfig'), context: 'pharos-test' },
      git: { push: join(work, 'none.git'), cluster: 'git://none/none.git' },
      registry: { host: 'registry.test:5000' },
      root: { application: 'pharos-root' },
      project: 'pharos',
    }),
  );
  await cluster.server.writeKubeconfig(join(work, 'kubeconfig'));
  const profile = await loadTargetProfile(targetsDir, 'bench');
  const commit = await resolveCommit(gitPort(dir), 'HEAD');
  const tree = await openGitTreeSource(dir, commit);
  const fingerprints = await fingerprintImages(tree, await loadCatalogue(tree));
  const digest = `sha256:${'0'.repeat(64)}`;
  await writeReceipt((await targetStatePaths(dir, profile.name)).receipt, {
    schema: 1,
    commit,
    delivered: '2026-01-01T00:00:00Z',
    images: Object.fromEntries(
      fingerprints.map((f) => [
        f.name,
        { fingerprint: f.fingerprint, reference: `registry.test:5000/${f.name}@${digest}` },
      ]),
    ),
  });
  const args = [TAKEOVER, 'plan', '--json', '--target', 'bench', '--targets', targetsDir, '--repo', dir];
  // Asynchronously: the test API server answering the plan's cleanup runs in this process. Interleaved with git status.
  const floorScript = join(ROOT, 'test/bench/support/plan-floor.ts');
  const [plan, status, floor] = await interleaved(
    [
      async () => {
        const result = await exec(NODE, args, { timeoutMs: 300_000 });
        if (result.code !== 0) throw new Error(`takeover plan failed: ${result.stderr}`);
      },
      () => run('git', ['-C', dir, 'status', '--porcelain']),
      () => run(NODE, [floorScript, dir]),
    ],
    { runs: 7 },
  );
  process.stdout.write(`takeover plan: ${repo.files} files, ${fingerprints.length} images\n`);
  process.stdout.write(
    `${ratioLine('takeover plan (warm, whole CLI)', plan, status, 'git status --porcelain', '<= 2x')}\n`,
  );
  // What no plan can go below: git status beside Node with zod, yaml and the Kube port loaded, and no work.
  process.stdout.write(
    `${ratioLine('  floor: git status + node + zod, yaml, Kube port', floor, status, 'git status --porcelain')}\n`,
  );
  await cluster.stop();
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(join(dir, '.local', 'metallo', 'bench'), { recursive: true, force: true });
}
