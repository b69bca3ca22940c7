// Fingerprint benchmarks (issue 20): every case as a ratio to a baseline measured in the same run, medians of
// interleaved runs with min–max, on three trees: real source-tree sizes (log-normal, the target rows), the
// project's installed node_modules (a tree no one here wrote), and the uniform repository (for continuity).
// BENCH_QUICK=1 (or --quick) uses smaller trees for development; BENCH_RUNS sets the rounds of the fast cases.
import { appendFileSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchRepo } from './generate-repo.ts';
import { realSizeRepo } from './support/real-size-repo.ts';
import { nodeModulesRepo } from './support/node-modules-repo.ts';
import { settle } from './support/commit-tree.ts';
import type { BenchTree } from './support/commit-tree.ts';
import { interleaved, pipe, ratioLine, run } from './support/measure.ts';
import { openSource, loadCatalogue, imageFileSet, excludeMatcher } from '../../scripts/lib/fingerprint/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = process.execPath;
const SCRIPT = join(ROOT, 'scripts/fingerprint.ts');
const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const SLOW_RUNS = Math.max(3, Math.ceil(RUNS / 2));
const fingerprint = (...args: string[]) => run(NODE, [SCRIPT, ...args]);
const out = (line: string) => process.stdout.write(`${line}\n`);

/** Peak resident set of one whole process (worker threads included), from a preloaded exit hook. */
function peakRss(args: readonly string[]): number {
  const r = spawnSync(NODE, ['--import', pathToFileURL(join(ROOT, 'test/bench/support/report-rss.ts')).href, SCRIPT, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fingerprint ${args.join(' ')} failed: ${r.stderr}`);
  return Number(/maxrss_kib=(\d+)/.exec(r.stderr)?.[1] ?? 'NaN') / 1024;
}

async function benchTree(tree: BenchTree, targets: boolean): Promise<void> {
  const dir = tree.dir;
  const local = join(dir, '.local');
  const target = (t: string) => (targets ? t : undefined);
  out(`\n-- ${tree.name}: ${tree.files} files, ${(tree.bytes / 1048576).toFixed(0)} MiB in ${dir}`);
  // The exact files the fingerprint hashes, for sha256sum to hash too.
  const source = await openSource(dir, 'HEAD');
  const catalogue = await loadCatalogue(source);
  const entries = await source.list(['.']);
  const sets = catalogue.images.map((image) => imageFileSet(image, entries, excludeMatcher(image.exclude)).map((e) => e.path));
  const files = [...new Set(sets.flat())];
  // How many images each file feeds: a typical edit touches one service's file, some touch a folder all share.
  const feeds = new Map<string, number>();
  for (const path of sets.flat()) feeds.set(path, (feeds.get(path) ?? 0) + 1);
  const ownFile = files.find((f) => feeds.get(f) === 1 && !f.endsWith('Dockerfile')) ?? files[0] ?? '';
  const sharedFile = files.find((f) => (feeds.get(f) ?? 0) > 1 && !f.endsWith('Dockerfile'));
  const listFile = join(tmpdir(), `pharos-bench-files-${process.pid}.list`);
  writeFileSync(listFile, `${files.join('\0')}\0`);
  const clearCaches = () => rmSync(local, { recursive: true, force: true });
  const status = { fn: () => run('git', ['-C', dir, 'status', '--porcelain']) };
  settle();

  const [cold, sha] = await interleaved([{ fn: () => fingerprint('--repo', dir), before: clearCaches }, { fn: () => run('xargs', ['-0', '-a', listFile, 'sha256sum'], { cwd: dir }) }], { runs: SLOW_RUNS });
  clearCaches();
  const rss = peakRss(['--repo', dir]);
  const [warm, warmStatus] = await interleaved([{ fn: () => fingerprint('--repo', dir) }, status], { runs: RUNS });
  let edit = 0;
  const oneChange = async (changed: string) => {
    const touch = () => appendFileSync(join(dir, changed), `// edit ${edit++}\n`);
    const timed = await interleaved([{ fn: () => fingerprint('--repo', dir), before: touch }, { ...status, before: touch }], { runs: RUNS });
    run('git', ['-C', dir, 'checkout', '--', changed]);
    return timed;
  };
  const [oneChanged, changedStatus] = await oneChange(ownFile);
  const shared = sharedFile === undefined ? undefined : await oneChange(sharedFile);
  const [revCold, archive] = await interleaved([{ fn: () => fingerprint('--repo', dir, '--rev', 'HEAD'), before: clearCaches }, { fn: () => pipe(['git', ['-C', dir, 'archive', 'HEAD']], ['sha256sum', []]) }], { runs: SLOW_RUNS });
  const [revWarm, archiveAgain] = await interleaved([{ fn: () => fingerprint('--repo', dir, '--rev', 'HEAD') }, { fn: () => pipe(['git', ['-C', dir, 'archive', 'HEAD']], ['sha256sum', []]) }], { runs: SLOW_RUNS });
  rmSync(listFile, { force: true });

  out(ratioLine('cold working tree (no caches)', cold, sha, 'sha256sum of the same files', target('<= 0.7x')));
  out(`${'  peak RSS of that cold run'.padEnd(44)} ${rss.toFixed(0)} MB${targets ? `  (target <= 120 MB: ${rss <= 120 ? 'met' : 'NOT met'})` : ''}`);
  out(ratioLine('warm, unchanged working tree', warm, warmStatus, 'git status --porcelain', target('<= 1.3x')));
  out(ratioLine(`one changed file (feeds 1 of ${catalogue.images.length} images)`, oneChanged, changedStatus, 'git status --porcelain', target('<= 1.8x')));
  if (shared !== undefined) out(ratioLine(`one changed file (feeds ${feeds.get(sharedFile ?? '')} images)`, shared[0], shared[1], 'git status --porcelain'));
  out(ratioLine('--rev HEAD, cold (no blob cache)', revCold, archive, 'git archive HEAD | sha256sum', target('<= 1.0x')));
  out(ratioLine('--rev HEAD, warm', revWarm, archiveAgain, 'git archive HEAD | sha256sum'));
}

const [helpRun, nodeStart] = await interleaved([() => fingerprint('--help'), () => run(NODE, ['-e', '0'])], { runs: Math.max(RUNS, 15) });
out(ratioLine('fingerprint.ts --help', helpRun, nodeStart, 'node -e 0', '<= 3x'));

await benchTree(realSizeRepo(QUICK ? 5_000 : 50_000), true);
await benchTree(nodeModulesRepo(QUICK ? 40 : Infinity), true);
if (!QUICK) {
  const uniform = benchRepo();
  await benchTree({ name: 'uniform sizes (~9 KB, for continuity)', ...uniform }, false);
}

// Peak RSS with one 1 GiB input file, streamed from disk and from git.
const big = join(tmpdir(), 'pharos-bench-big');
if (!existsSync(join(big, '.git', 'pharos-bench'))) {
  rmSync(big, { recursive: true, force: true });
  mkdirSync(join(big, 'svc'), { recursive: true });
  mkdirSync(join(big, 'gitops/manifests'), { recursive: true });
  writeFileSync(join(big, 'svc/Dockerfile'), 'FROM scratch\nCOPY svc /svc\n');
  writeFileSync(join(big, 'gitops/manifests/images.yaml'), JSON.stringify({ platform: 'linux/amd64', images: { big: { image: 'pharos/big', application: 'pharos', context: '.', dockerfile: 'svc/Dockerfile', inputs: ['svc'] } } }));
  const fd = openSync(join(big, 'svc/blob.bin'), 'w');
  const chunk = randomBytes(1 << 20);
  for (let i = 0; i < 1024; i++) writeSync(fd, chunk.map((b) => b ^ i));
  closeSync(fd);
  run('git', ['init', '-q', big]);
  run('git', ['-C', big, 'add', '-A']);
  run('git', ['-C', big, '-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '-m', 'big']);
  writeFileSync(join(big, '.git', 'pharos-bench'), '1\n');
  settle();
}
const bigRss = (...args: string[]) => {
  rmSync(join(big, '.local'), { recursive: true, force: true });
  return `${peakRss(['--repo', big, ...args]).toFixed(0)} MB`;
};
out(`\npeak RSS, one 1 GiB input: working tree ${bigRss()}, --rev HEAD ${bigRss('--rev', 'HEAD')}  (target < 150 MB)`);
