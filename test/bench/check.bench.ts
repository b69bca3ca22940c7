// check on the 50,000-file benchmark repository, as a ratio to the warm working-tree fingerprint
// of the same tree measured in this run (target: at most 2x). Usage: node test/bench/check.bench.ts [repo-dir]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkPlatform } from '../../scripts/lib/check/index.ts';
import { fingerprintImages, loadCatalogue, openSource } from '../../scripts/lib/fingerprint/index.ts';

/** The lead's shared generator when present; else a small repository of this bench's own. */
async function repository(): Promise<string> {
  const given = process.argv[2];
  if (given !== undefined) return resolve(given);
  const generator = new URL('./generate-repo.ts', import.meta.url);
  if (existsSync(generator)) {
    const module = (await import(generator.href)) as { benchRepo: () => { dir: string } };
    return module.benchRepo().dir;
  }
  return smallRepository(5_000);
}

function smallRepository(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'check-bench-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const images: Record<string, unknown> = {};
  for (let i = 0; i < files; i++)
    write(`services/svc-${i % 10}/src/m-${Math.floor(i / 100)}/${i}.ts`, `export const x${i} = ${i};\n`);
  for (let s = 0; s < 10; s++) {
    write(`services/svc-${s}/Dockerfile`, `FROM base\nCOPY services/svc-${s}/src /app\n`);
    write(
      `gitops/manifests/svc-${s}.yaml`,
      `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - image: pharos/svc-${s}\n`,
    );
    images[`svc-${s}`] = {
      image: `pharos/svc-${s}`,
      application: 'pharos',
      context: '.',
      dockerfile: `services/svc-${s}/Dockerfile`,
      inputs: [`services/svc-${s}`],
    };
  }
  write('gitops/apps/pharos.yaml', 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: pharos}\n');
  write('gitops/manifests/images.yaml', JSON.stringify({ platform: 'linux/amd64', images }));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@example.invalid',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@example.invalid',
  };
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  execFileSync('git', ['-C', dir, 'add', '-A'], { env });
  execFileSync('git', ['-C', dir, 'commit', '-q', '-m', 'bench'], { env });
  return dir;
}

async function fingerprintOnce(dir: string): Promise<number> {
  const source = await openSource(dir, undefined);
  return (await fingerprintImages(source, await loadCatalogue(source))).length;
}

async function checkOnce(dir: string): Promise<number> {
  const source = await openSource(dir, undefined);
  return (await checkPlatform(source, await loadCatalogue(source))).length;
}

async function median(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
}

const ROOT = resolve(import.meta.dirname, '../..');
const NODE = join(ROOT, 'node_modules/.bin/node');

/** The whole command as a user runs it: process start, module load, work. */
function command(script: string, dir: string): () => Promise<void> {
  return async () => {
    spawnSync(NODE, [join(ROOT, 'scripts', script), '--repo', dir, '--json'], { stdio: 'ignore' });
  };
}

const dir = await repository();
const files =
  execFileSync('git', ['-C', dir, 'ls-files'], { maxBuffer: 1 << 27 })
    .toString()
    .split('\n').length - 1;
await fingerprintOnce(dir); // warm: stat and blob caches filled, as a developer's second run finds them
const findings = await checkOnce(dir);
const fingerprint = await median(5, () => fingerprintOnce(dir));
const check = await median(5, () => checkOnce(dir));
const fingerprintCommand = await median(3, command('fingerprint.ts', dir));
const checkCommand = await median(3, command('check-platform-gitops.ts', dir));
process.stdout.write(
  `check.bench: ${files} files, ${findings} findings\n` +
    `  baseline  warm working-tree fingerprint  ${fingerprint.toFixed(0)} ms (median of 5)\n` +
    `  check     working tree                   ${check.toFixed(0)} ms (median of 5)\n` +
    `  ratio     check / fingerprint            ${(check / fingerprint).toFixed(2)}x (target <= 2x)\n` +
    `  commands  check-platform-gitops / fingerprint, whole processes: ${checkCommand.toFixed(0)} / ${fingerprintCommand.toFixed(0)} ms = ${(checkCommand / fingerprintCommand).toFixed(2)}x\n`,
);
