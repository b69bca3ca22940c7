// Fingerprint benchmarks (issue: foundation). Ratios against baselines measured in the same run.
import { appendFileSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchRepo } from './generate-repo.ts';
import { pipe, ratioLine, run, timeIt } from './support/measure.ts';
import { openSource, loadCatalogue, imageFileSet, excludeMatcher } from '../../scripts/lib/fingerprint/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = process.execPath;
const SCRIPT = join(ROOT, 'scripts/fingerprint.ts');
const fingerprint = (...args: string[]) => run(NODE, [SCRIPT, ...args]);

const repo = benchRepo();
const dir = repo.dir;
const local = join(dir, '.local');
process.stdout.write(`fingerprint: ${repo.files} files, ${(repo.bytes / 1048576).toFixed(0)} MiB in ${dir}\n`);

// The exact files the fingerprint hashes, for sha256sum to hash too.
const source = await openSource(dir, 'HEAD');
const catalogue = await loadCatalogue(source);
const entries = await source.list(['.']);
const excluded = excludeMatcher(catalogue.exclude);
const files = [...new Set(catalogue.images.flatMap((image) => imageFileSet(image, entries, excluded).map((e) => e.path)))];
const listFile = join(tmpdir(), 'pharos-bench-files.list');
writeFileSync(listFile, `${files.join('\0')}\0`);

const clearCaches = () => rmSync(local, { recursive: true, force: true });
const clearResults = () => rmSync(join(local, 'fingerprint/results.json'), { force: true });

const cold = await timeIt(() => fingerprint('--repo', dir), { runs: 3, before: clearCaches });
const sha = await timeIt(() => run('xargs', ['-0', '-a', listFile, 'sha256sum'], { cwd: dir }), { runs: 3 });
const warm = await timeIt(() => fingerprint('--repo', dir), { runs: 9 });
const status = await timeIt(() => run('git', ['-C', dir, 'status', '--porcelain']), { runs: 9 });
const warmNoResults = await timeIt(() => fingerprint('--repo', dir), { runs: 9, before: clearResults });
let edit = 0;
const changed = files.find((f) => f.startsWith('services/svc-03/src')) ?? files[0] ?? '';
const oneChanged = await timeIt(() => fingerprint('--repo', dir), { runs: 9, before: () => appendFileSync(join(dir, changed), `// edit ${edit++}\n`) });
run('git', ['-C', dir, 'checkout', '--', changed]);
const revCold = await timeIt(() => fingerprint('--repo', dir, '--rev', 'HEAD'), { runs: 3, before: clearCaches });
const archive = await timeIt(() => pipe(['git', ['-C', dir, 'archive', 'HEAD']], ['sha256sum', []]), { runs: 3 });
const revWarm = await timeIt(() => fingerprint('--repo', dir, '--rev', 'HEAD'), { runs: 9 });
const nodeStart = await timeIt(() => run(NODE, ['-e', '0']), { runs: 9 });

process.stdout.write(
  [
    ratioLine('cold working tree (no caches)', cold, sha, 'sha256sum of the same files', '<= 0.6x'),
    ratioLine('warm unchanged working tree', warm, status, 'git status --porcelain', '<= 1.5x'),
    ratioLine('warm, stat/blob caches only (no result cache)', warmNoResults, status, 'git status --porcelain'),
    ratioLine('one changed file', oneChanged, status, 'git status --porcelain'),
    ratioLine('--rev HEAD, cold (no blob cache)', revCold, archive, 'git archive HEAD | sha256sum', '<= 1.5x'),
    ratioLine('--rev HEAD, warm', revWarm, archive, 'git archive HEAD | sha256sum'),
    ratioLine('node -e 0 (start-up floor)', nodeStart, status, 'git status --porcelain'),
  ].join('\n') + '\n',
);

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
}
const rss = (...args: string[]) => {
  rmSync(join(big, '.local'), { recursive: true, force: true });
  const r = spawnSync(NODE, ['--import', pathToFileURL(join(ROOT, 'test/bench/support/report-rss.ts')).href, SCRIPT, '--repo', big, ...args], { encoding: 'utf8' });
  const kib = Number(/maxrss_kib=(\d+)/.exec(r.stderr)?.[1] ?? 'NaN');
  return `${(kib / 1024).toFixed(0)} MB`;
};
process.stdout.write(`peak RSS, one 1 GiB input: working tree ${rss()}, --rev HEAD ${rss('--rev', 'HEAD')}  (target < 150 MB)\n`);
