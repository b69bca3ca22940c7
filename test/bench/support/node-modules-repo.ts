// A second benchmark tree that no one here wrote: the project's installed production dependencies
// (`npm ls --omit=dev`), copied as npm laid them out and committed into a repository of their own.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { commitTree, settle } from './commit-tree.ts';
import type { BenchTree } from './commit-tree.ts';

const FORMAT = 'bench-node-modules/1';
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const IMAGES = 12;

/** Top-level package folders (`node_modules/x`, `node_modules/@s/x`) of the production dependency closure. */
function productionPackages(): string[] {
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--parseable', '--all'], {
    cwd: ROOT,
    maxBuffer: 1 << 26,
    encoding: 'utf8',
  });
  // npm ls exits 1 when the tree has a problem (an extraneous, invalid or missing package, an unmet peer) but still
  // lists what is installed: those packages are the tree to copy, so only a missing listing is fatal.
  const out = ls.stdout ?? '';
  if (ls.error !== undefined || (ls.status !== 0 && ls.status !== 1) || out.trim() === '')
    throw new Error(`npm ls --omit=dev failed (${ls.error?.message ?? `exit ${ls.status}`}): ${ls.stderr ?? ''}`);
  if (ls.status === 1)
    process.stderr.write(`npm ls reported problems; copying the packages it lists anyway:\n${ls.stderr.trim()}\n`);
  const top = new Set<string>();
  for (const line of out.split('\n')) {
    const path = relative(ROOT, line.trim());
    const match = /^node_modules\/(@[^/]+\/[^/]+|[^@/][^/]*)/.exec(path);
    if (match !== null) top.add(`node_modules/${match[1]}`);
  }
  return [...top].sort();
}

/** `packages` limits the copy to the first N top-level packages (the quick mode). */
export function nodeModulesRepo(
  packages = Infinity,
  dir = join(tmpdir(), `pharos-bench-node-modules-${packages}`),
): BenchTree {
  const marker = join(dir, '.git', 'pharos-bench');
  if (existsSync(marker) && readFileSync(marker, 'utf8').startsWith(FORMAT)) {
    const [, count, bytes] = readFileSync(marker, 'utf8').trim().split(' ');
    settle();
    return { name: 'node_modules', dir, files: Number(count), bytes: Number(bytes) };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const chosen = productionPackages().slice(0, packages);
  process.stderr.write(`copying ${chosen.length} installed packages into ${dir} ...\n`);
  // Nested node_modules come along: they are part of what npm installed for these packages.
  for (const pkg of chosen) cpSync(join(ROOT, pkg), join(dir, pkg), { recursive: true, verbatimSymlinks: true });
  const images: Record<string, unknown> = {};
  const per = Math.ceil(chosen.length / IMAGES);
  for (let i = 0; i * per < chosen.length; i++) {
    const name = `deps-${String(i).padStart(2, '0')}`;
    mkdirSync(join(dir, 'images', name), { recursive: true });
    writeFileSync(
      join(dir, 'images', name, 'Dockerfile'),
      'FROM pharos/base:local\nCOPY node_modules /app/node_modules\n',
    );
    images[name] = {
      image: `pharos/${name}`,
      application: 'pharos',
      context: '.',
      dockerfile: `images/${name}/Dockerfile`,
      inputs: chosen.slice(i * per, (i + 1) * per),
    };
  }
  mkdirSync(join(dir, 'gitops/manifests'), { recursive: true });
  writeFileSync(
    join(dir, 'gitops/manifests/images.yaml'),
    JSON.stringify({ platform: 'linux/amd64', images }, null, 1),
  );
  // Packages ship their own ignore files; a bench tree takes every installed file as it is.
  writeFileSync(join(dir, '.gitignore'), '');
  const tree = { ...commitTree(dir, 'node_modules') };
  writeFileSync(marker, `${FORMAT} ${tree.files} ${tree.bytes}\n`);
  return tree;
}
