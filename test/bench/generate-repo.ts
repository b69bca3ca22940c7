// Generates (once, then reuses) the benchmark repository: 50,000 files, ~450 MB, 20 images covering most of it.
import { existsSync, mkdirSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { settle } from './support/commit-tree.ts';

export interface BenchRepo {
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
}

const FORMAT = 'bench-repo/2';
const SERVICES = 20;
const FILES = 50_000;
const TARGET_BYTES = 450 * 1024 * 1024;

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

/** Text-like content (base64 of random bytes): compresses about as well as source code does. */
function content(size: number): Buffer {
  return Buffer.from(
    randomBytes(Math.ceil((size * 3) / 4))
      .toString('base64')
      .slice(0, size),
  );
}

export function benchRepo(dir = join(tmpdir(), 'pharos-bench-repo')): BenchRepo {
  const marker = join(dir, '.git', 'pharos-bench');
  if (existsSync(marker) && readFileSync(marker, 'utf8').startsWith(FORMAT)) {
    const [, files, bytes] = readFileSync(marker, 'utf8').trim().split(' ');
    settle();
    return { dir, files: Number(files), bytes: Number(bytes) };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`generating ${FILES} files (~${TARGET_BYTES >> 20} MiB) in ${dir} ...\n`);
  const images: Record<string, unknown> = {};
  let bytes = 0;
  const write = (path: string, data: Buffer | string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
    bytes += data.length;
  };
  const perFile = Math.floor(TARGET_BYTES / FILES);
  for (let i = 0; i < FILES - SERVICES - 1; i++) {
    const svc = i % (SERVICES + 2); // two folders are shared libraries, the rest services
    const group =
      svc === SERVICES
        ? 'libs/common'
        : svc === SERVICES + 1
          ? 'contracts'
          : `services/svc-${String(svc).padStart(2, '0')}`;
    // Sizes vary from tiny to ~4x the mean; a few tests and docs that the exclude rule drops.
    const size = Math.floor((perFile * ((i * 7919) % 400)) / 200) + 16;
    const kind = i % 50 === 0 ? 'tests/case' : i % 97 === 0 ? 'docs/page' : 'src/mod';
    write(`${group}/${kind}-${Math.floor(i / 500)}/${i}.${kind.startsWith('docs') ? 'md' : 'ts'}`, content(size));
  }
  for (let s = 0; s < SERVICES; s++) {
    const name = `svc-${String(s).padStart(2, '0')}`;
    write(
      `services/${name}/Dockerfile`,
      `FROM pharos/base:local\nCOPY services/${name}/src /app\nCOPY libs/common /libs\nCOPY contracts /contracts\n`,
    );
    images[name] = {
      image: `pharos/${name}`,
      application: 'pharos',
      context: '.',
      dockerfile: `services/${name}/Dockerfile`,
      inputs: [`services/${name}`, 'libs/common', 'contracts'],
    };
  }
  write('gitops/manifests/images.yaml', JSON.stringify({ platform: 'linux/amd64', images }, null, 1));
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  execFileSync('git', ['-C', dir, 'add', '-A'], { env });
  execFileSync('git', ['-C', dir, 'commit', '-q', '-m', 'bench'], { env });
  const files = Number(
    execFileSync('git', ['-C', dir, 'ls-files'], { env, maxBuffer: 1 << 26 })
      .toString()
      .split('\n').length - 1,
  );
  writeFileSync(marker, `${FORMAT} ${files} ${bytes}\n`);
  settle();
  return { dir, files, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const repo = benchRepo(process.argv[2]);
  process.stdout.write(`${repo.dir}: ${repo.files} files, ${(repo.bytes / 1048576).toFixed(0)} MiB\n`);
}
