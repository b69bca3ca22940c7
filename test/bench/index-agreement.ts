// Checks the three working-tree snapshots against each other on real repositories: for each one (a clone of each git
// dir given, or a working tree as it is), a catalogue with one image per top-level folder is committed, then the
// working-tree fingerprints through the index reader alone, through the index file beside git status (the default),
// through git's four commands and of `--rev HEAD` must agree byte for byte; then after an edit, a deletion, an
// untracked file and an ignored one, the first three again. Prints the times.
// Usage: node test/bench/index-agreement.ts <git dir or work tree>...
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, appendFileSync, lstatSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fingerprintImages, loadCatalogue, openSource } from '../../scripts/lib/fingerprint/index.ts';
import { openWorktreeSource } from '../../scripts/lib/fingerprint/worktree-source.ts';
import { gitSnapshot } from '../../scripts/lib/fingerprint/git-worktree-snapshot.ts';

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { env, maxBuffer: 1 << 28 }).toString('utf8');

async function prints(dir: string, via: 'index' | 'status' | 'git' | 'rev'): Promise<string> {
  rmSync(join(dir, '.local'), { recursive: true, force: true });
  const source = via === 'rev' ? await openSource(dir, 'HEAD') : await openWorktreeSource(dir, via);
  const results = await fingerprintImages(source, await loadCatalogue(source));
  return results.map((r) => `${r.name} ${r.files} ${r.fingerprint}`).join('\n');
}

function firstFile(dir: string, rel: string): string | undefined {
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const path = `${rel}/${name}`;
    const st = lstatSync(join(dir, path));
    if (st.isFile()) return path;
  }
  return undefined;
}

let failed = 0;
for (const arg of process.argv.slice(2)) {
  const isWorkTree = existsSync(join(arg, '.git'));
  const dir = isWorkTree ? arg : join(tmpdir(), `pharos-agree-${basename(arg.replace(/\/repo$/, ''))}`);
  if (!isWorkTree && !existsSync(dir)) execFileSync('git', ['clone', '-q', arg, dir], { env });
  if (!existsSync(join(dir, 'gitops/manifests/images.yaml'))) {
    const tracked = new Set(git(dir, 'ls-files', '-z').split('\0'));
    const images: Record<string, unknown> = {};
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git' || !lstatSync(join(dir, name)).isDirectory()) continue;
      const dockerfile = firstFile(dir, name);
      if (dockerfile === undefined || !tracked.has(dockerfile) || Object.keys(images).length >= 10) continue;
      images[name.replace(/[^a-z0-9-]/gi, '').toLowerCase() || 'x'] = {
        image: `pharos/${name}`,
        application: 'pharos',
        context: '.',
        dockerfile,
        inputs: [name],
      };
    }
    mkdirSync(join(dir, 'gitops/manifests'), { recursive: true });
    writeFileSync(
      join(dir, 'gitops/manifests/images.yaml'),
      JSON.stringify({ platform: 'linux/amd64', images, exclude: [] }),
    );
    git(dir, 'add', 'gitops/manifests/images.yaml');
    git(dir, 'commit', '-q', '--no-verify', '-m', 'catalogue for the agreement check');
  }
  const t0 = performance.now();
  const snapshot = await gitSnapshot(dir, 'index');
  const t1 = performance.now();
  await gitSnapshot(dir, 'git');
  const t2 = performance.now();
  const files = git(dir, 'ls-files', '-z').split('\0').length - 1;
  const check = (label: string, a: string, b: string) => {
    const ok = a === b;
    if (!ok) failed++;
    process.stdout.write(`  ${label}: ${ok ? 'identical' : 'DIFFERENT'}\n`);
    if (!ok) process.stdout.write(`--- ${a}\n+++ ${b}\n`);
  };
  process.stdout.write(
    `${dir}: ${files} tracked files, snapshot from the index ${(t1 - t0).toFixed(0)} ms (via ${snapshot.via}), from git ${(t2 - t1).toFixed(0)} ms\n`,
  );
  const index = await prints(dir, 'index');
  process.stdout.write(`${index.split('\n').length} images\n`);
  const viaGit = await prints(dir, 'git');
  check('index reader vs git', index, viaGit);
  check('index file + git status (the default) vs git', await prints(dir, 'status'), viaGit);
  if (!isWorkTree) {
    check('working tree vs --rev HEAD', index, await prints(dir, 'rev'));
    // An edit, a deletion, an untracked file and an ignored one, in the first image's folder.
    const first = git(dir, 'ls-files', '-z')
      .split('\0')
      .find((p) => p.includes('/') && !p.startsWith('gitops/'));
    if (first !== undefined) {
      const folder = first.slice(0, first.indexOf('/'));
      appendFileSync(join(dir, first), 'edited\n');
      const second = git(dir, 'ls-files', '-z', '--', folder).split('\0')[1];
      if (second) rmSync(join(dir, second));
      writeFileSync(join(dir, folder, 'untracked-by-agreement.txt'), 'new\n');
      mkdirSync(join(dir, folder, 'node_modules'), { recursive: true });
      writeFileSync(join(dir, folder, 'node_modules', 'ignored.js'), 'x\n');
      const edited = await prints(dir, 'git');
      check('after edits: index reader vs git', await prints(dir, 'index'), edited);
      check('after edits: index file + git status vs git', await prints(dir, 'status'), edited);
      git(dir, 'checkout', '--', '.');
      rmSync(join(dir, folder, 'untracked-by-agreement.txt'));
      rmSync(join(dir, folder, 'node_modules', 'ignored.js'));
    }
  }
}
process.exitCode = failed === 0 ? 0 : 1;
