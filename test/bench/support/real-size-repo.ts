// Generates (once, then reuses) a repository whose file sizes follow a real source tree: log-normal,
// median ~4 KB, ~330 MB over 50,000 files (the uniform repository of generate-repo.ts hides per-file cost).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { commitTree, settle } from './commit-tree.ts';
import type { BenchTree } from './commit-tree.ts';

const FORMAT = 'bench-real-sizes/1';
const SERVICES = 20;
const MEDIAN = 4096;
// mean = median * exp(sigma^2 / 2): sigma 0.98 gives a mean of ~6.6 KB, 330 MB over 50,000 files.
const SIGMA = 0.98;
const MAX_BYTES = 4 << 20;

/** A small deterministic generator (mulberry32): every run writes the same sizes. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-normal sizes by Box–Muller. */
export function logNormalSizes(count: number, seed = 20): number[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    return Math.min(MAX_BYTES, Math.max(1, Math.round(MEDIAN * Math.exp(SIGMA * normal))));
  });
}

/** Text-like content (base64 of random bytes): compresses about as well as source code does. */
function content(size: number): Buffer {
  return Buffer.from(
    randomBytes(Math.ceil((size * 3) / 4))
      .toString('base64')
      .slice(0, size),
  );
}

export function realSizeRepo(files = 50_000, dir = join(tmpdir(), `pharos-bench-real-sizes-${files}`)): BenchTree {
  const marker = join(dir, '.git', 'pharos-bench');
  if (existsSync(marker) && readFileSync(marker, 'utf8').startsWith(FORMAT)) {
    const [, count, bytes] = readFileSync(marker, 'utf8').trim().split(' ');
    settle();
    return { name: 'real sizes', dir, files: Number(count), bytes: Number(bytes) };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`generating ${files} files with log-normal sizes (median ${MEDIAN >> 10} KiB) in ${dir} ...\n`);
  const write = (path: string, data: Buffer | string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  };
  const sizes = logNormalSizes(files - SERVICES - 1);
  // Folders of ~40 files, as source trees have; two shared folders, the rest services.
  sizes.forEach((size, i) => {
    const svc = i % (SERVICES + 2);
    const group =
      svc === SERVICES
        ? 'libs/common'
        : svc === SERVICES + 1
          ? 'contracts'
          : `services/svc-${String(svc).padStart(2, '0')}`;
    const kind = i % 50 === 0 ? 'tests/case' : i % 97 === 0 ? 'docs/page' : 'src/mod';
    write(`${group}/${kind}-${Math.floor(i / 900)}/${i}.${kind.startsWith('docs') ? 'md' : 'ts'}`, content(size));
  });
  const images: Record<string, unknown> = {};
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
  const tree = commitTree(dir, 'real sizes');
  writeFileSync(marker, `${FORMAT} ${tree.files} ${tree.bytes}\n`);
  return tree;
}
