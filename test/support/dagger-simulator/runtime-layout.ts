// The Node runtime container as Dagger's TypeScript SDK lays it out, read at the engine version dagger.json pins
// (v0.21.9; its sdk/typescript is that of dagger/dagger@00c993cbe47ba494262871052b9ab4a547989b1d, backport-0.21):
// - sdk/typescript/runtime/main.go: ModSourceDirPath "/src", the entrypoint src/__dagger.entrypoint.ts, sdk/ generated.
// - sdk/typescript/runtime/config.go: the source is ContextDirectory().Directory(<dagger.json "source">) and nothing
//   else (wrappedSourceCodeDirectory drops config files, sdk, node_modules); detectRuntime reads package.json
//   "dagger.runtime" (bun or node only), detectPackageManager picks npm for a package-lock.json.
// - sdk/typescript/runtime/runtime_node.go: node:<version>-alpine (no git), workdir /src/<source>, tsx mounted from the
//   engine, package.json rewritten (tsutils/package_json_updator.go: type module, typescript 5.9.3 when absent,
//   @dagger.io/dagger removed), `npm install --omit=dev` with the lockfile, sdk/ and node_modules/@dagger.io/dagger
//   mounted, tsconfig.json rewritten (tsutils/tsconfig_updator.go: paths to ./sdk, experimentalDecorators), entrypoint
//   `tsx --no-deprecation --tsconfig /src/<source>/tsconfig.json /src/<source>/src/__dagger.entrypoint.ts`.
// - toolchains/engine-dev/build/sdk.go: the engine bundles tsx 4.15.6 (TypescriptSDKTSXVersion).
// Differences: the SDK library is the npm package's (same version) mounted at /sdk-bundle instead of the engine's
// bundle, npm is the host's (the project's Node 24) run before the container starts, and the image is this
// machine's Node binary imported into Docker: docs/dagger.md, "The engine simulator".
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { dockerOk } from './docker-cli.ts';
import { rootfsImage } from './rootfs-image.ts';

export const REPO = join(import.meta.dirname, '../../..');
export const SDK_BUNDLE = '/sdk-bundle/node_modules';
/** config.go moduleConfigFiles: never copied with the source, each written by the runtime itself. */
const CONFIG_FILES = new Set([
  'package.json',
  'tsconfig.json',
  'pnpm-workspace.yaml',
  '.yarnrc.yml',
  'package-lock.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'bunfig.toml',
  'deno.json',
  'deno.lock',
]);

export interface RuntimeLayout {
  /** Host folder mounted at /src. */
  readonly src: string;
  /** Host folder mounted at /src/<source>/node_modules. */
  readonly nodeModules: string;
  readonly image: string;
  readonly source: string;
  readonly moduleName: string;
}

/** tsutils/package_json_updator.go UpdatePackageJSONForModule. */
function runtimePackageJson(text: string): string {
  const pkg = JSON.parse(text) as Record<string, Record<string, string> | string>;
  pkg['type'] = 'module';
  const deps = { ...((pkg['dependencies'] as Record<string, string> | undefined) ?? {}) };
  deps['typescript'] ??= '5.9.3';
  delete deps['@dagger.io/dagger'];
  pkg['dependencies'] = deps;
  if (typeof pkg['devDependencies'] === 'object') delete pkg['devDependencies']['@dagger.io/dagger'];
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** tsutils/tsconfig_updator.go UpdateTSConfigForModule. */
function runtimeTsconfig(text: string): string {
  const config = JSON.parse(text) as { compilerOptions?: Record<string, unknown> };
  const options = (config.compilerOptions ??= {});
  options['paths'] = {
    ...((options['paths'] as Record<string, string[]> | undefined) ?? {}),
    '@dagger.io/dagger': ['./sdk/index.ts'],
    '@dagger.io/dagger/telemetry': ['./sdk/telemetry.ts'],
  };
  options['experimentalDecorators'] = true;
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** What tsutils/bin/__dagger.entrypoint.ts does, written here: every .ts/.mts under src/ and sdk/client.gen.ts, to the SDK's entrypoint(). */
const ENTRYPOINT = `import { entrypoint } from '@dagger.io/dagger';
import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
function list(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return list(path);
    return ['.ts', '.mts'].includes(extname(path)) ? [path] : [];
  });
}
entrypoint([...list(import.meta.dirname), \`\${import.meta.dirname}/../sdk/client.gen.ts\`]);
`;

/** `npm install --omit=dev` of the rewritten package.json with the module's lockfile, once per content. */
async function installDependencies(pkg: string, lock: string): Promise<string> {
  const key = createHash('sha256').update(pkg).update(lock).digest('hex').slice(0, 16);
  const done = join(REPO, '.local/dagger-simulator', `node_modules-${key}`);
  if (existsSync(done)) return done;
  const work = `${done}.${process.pid}.tmp`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  await writeFile(join(work, 'package.json'), pkg);
  await writeFile(join(work, 'package-lock.json'), lock);
  const node = await realpath(join(REPO, 'node_modules/.bin/node'));
  const installed = await exec('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: work,
    env: { ...process.env, PATH: `${dirname(node)}:${process.env['PATH'] ?? ''}` },
    timeoutMs: 300_000,
  });
  if (installed.code !== 0) throw new Error(`npm install of the module's dependencies failed: ${installed.stderr}`);
  // node_runtime.go mounts the SDK library here too (for the introspector); here it is the bundle's copy.
  await mkdir(join(work, 'node_modules/@dagger.io'), { recursive: true });
  await symlink(`${SDK_BUNDLE}/@dagger.io/dagger`, join(work, 'node_modules/@dagger.io/dagger'));
  await rename(join(work, 'node_modules'), done).catch(async (error: NodeJS.ErrnoException) => {
    if (!existsSync(done)) throw error; // another run finished first
  });
  await rm(work, { recursive: true, force: true });
  return done;
}

/** Lays the module out as the runtime does, in `root` (a fresh folder). */
export async function layOutModule(root: string): Promise<RuntimeLayout> {
  const config = JSON.parse(await readFile(join(REPO, 'dagger.json'), 'utf8')) as { name: string; source: string };
  const from = join(REPO, config.source);
  const dir = join(root, 'src', config.source);
  await cp(from, dir, {
    recursive: true,
    filter: (path) => {
      const rel = relative(from, path);
      return !CONFIG_FILES.has(rel) && rel !== 'sdk' && rel !== 'node_modules' && !rel.startsWith('node_modules/');
    },
  });
  const pkg = runtimePackageJson(await readFile(join(from, 'package.json'), 'utf8'));
  const lock = await readFile(join(from, 'package-lock.json'), 'utf8');
  await writeFile(join(dir, 'package.json'), pkg);
  await writeFile(join(dir, 'package-lock.json'), lock);
  await writeFile(join(dir, 'tsconfig.json'), runtimeTsconfig(await readFile(join(from, 'tsconfig.json'), 'utf8')));
  await mkdir(join(dir, 'sdk'), { recursive: true });
  const dist = `${SDK_BUNDLE}/@dagger.io/dagger/dist/src`;
  await writeFile(join(dir, 'sdk/index.ts'), `export * from '${dist}/index.js';\n`);
  await writeFile(join(dir, 'sdk/telemetry.ts'), `export * from '${dist}/telemetry/index.js';\n`);
  // The introspector finds core types (Directory, Container…) by their declarations in a file named client.gen.ts.
  const declared = await readFile(
    join(REPO, 'dagger/node_modules/@dagger.io/dagger/dist/src/api/client.gen.d.ts'),
    'utf8',
  );
  await writeFile(
    join(dir, 'sdk/client.gen.ts'),
    declared.replace(/(["'])\.\.\//g, `$1${dist}/`).replace(/(["'])\.\//g, `$1${dist}/api/`),
  );
  await writeFile(join(dir, 'src/__dagger.entrypoint.ts'), ENTRYPOINT);
  const [nodeModules, image] = await Promise.all([installDependencies(pkg, lock), nodeImage()]);
  return { src: join(root, 'src'), nodeModules, image, source: config.source, moduleName: config.name };
}

/** A Node root file system without git (the runtime image is node:<version>-alpine, which has none). */
export async function nodeImage(): Promise<string> {
  const node = await realpath(join(REPO, 'node_modules/.bin/node'));
  const version = (await exec(node, ['--version'])).stdout.toString('utf8').trim();
  return rootfsImage(`pharos/dagger-node-runtime:${version}`, [{ from: node, to: '/usr/local/bin/node' }]);
}

export async function hasGit(image: string): Promise<boolean> {
  const probe = `try { require('node:child_process').execFileSync('git', ['--version']); process.exit(0) } catch { process.exit(3) }`;
  const out = await dockerOk(['run', '--rm', '--entrypoint', '/usr/local/bin/node', image, '-e', probe]).then(
    () => 'yes',
    () => 'no',
  );
  return out === 'yes';
}
