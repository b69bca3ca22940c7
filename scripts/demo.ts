#!/usr/bin/env node
// `make demo`: the fingerprint table, then the real pull-deployment loop on this machine (Docker Engine, Compose, a local registry, Git).
import './lib/cli/require-node.ts';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoRegistry } from './lib/demo/local-registry.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/demo.json', import.meta.url), '', process.argv.slice(2));
// Loaded after the help check: a help request loads none of them.
const { command, flag } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { ToolkitError } = await import('./lib/errors/toolkit-error.ts');
const { formatTable } = await import('./lib/cli/table.ts');
const { serializeLock } = await import('./lib/lock/parse-lock.ts');
const { exec } = await import('./lib/ports/exec.ts');
const { dockerPort } = await import('./lib/ports/docker.ts');
const { detectCompose } = await import('./lib/ports/compose.ts');
const { loadSigningKey, signWithKey } = await import('./lib/signing/sign-with-key.ts');
const { ensureBaseImage } = await import('./lib/demo/base-image.ts');
const { ensurePostgresBaseImage, POSTGRES_BASE_IMAGE } = await import('./lib/demo/postgres-base-image.ts');
const { startRegistry } = await import('./lib/demo/local-registry.ts');
const { buildAndPush, makeDemoRepo, publishOnDeployState } = await import('./lib/demo/demo-platform.ts');

/** A P-256 key pair as `<name>.key` (0600) and `<name>.pub`; returns both paths. */
async function writeKeyPair(dir: string, name: string): Promise<[string, string]> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = join(dir, `${name}.key`);
  const pub = join(dir, `${name}.pub`);
  await writeFile(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(pub, publicKey.export({ type: 'spki', format: 'pem' }));
  return [key, pub];
}

const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'examples', 'platform');
const PREFIX = 'hephaestus-demo-';
const STACKS = ['core', 'app'];
const DATABASE_NETWORK = `${PREFIX}database`;

const say = (line: string) => process.stdout.write(`\n== ${line}\n`);

/** Runs a project script with this Node, its output shown as it comes. */
function script(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', name), ...args], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, ...env },
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function must(what: string, code: Promise<number>): Promise<void> {
  const status = await code;
  if (status !== 0) throw new Error(`${what} exited ${status}`);
}

/** Removes what a demo run (this one or an interrupted earlier one) left in Docker: containers and networks of its projects. */
async function removeDemoProjects(): Promise<void> {
  const docker = dockerPort();
  for (const stack of STACKS) {
    const ids = (await docker.containers({ 'com.docker.compose.project': `${PREFIX}${stack}` })).map((c) => c.id);
    if (ids.length > 0) await exec('docker', ['rm', '--force', ...ids]);
    await exec('docker', ['network', 'rm', `${PREFIX}${stack}_default`]);
  }
  // The database's data volume goes too: every demo starts from an empty database and migrates it.
  await exec('docker', ['volume', 'rm', `${PREFIX}core_data`]);
  await exec('docker', ['network', 'rm', DATABASE_NETWORK]);
}

/** What the migrations recorded in the demo's database (psql inside the postgres container, as UID 70 over its socket). */
async function showMigrations(): Promise<void> {
  const postgres = (
    await dockerPort().containers({
      'com.docker.compose.project': `${PREFIX}core`,
      'com.docker.compose.service': 'postgres',
    })
  ).find((c) => c.running && !c.oneoff);
  if (postgres === undefined) return;
  const sql = "SELECT version || ' ' || to_char(applied_at, 'HH24:MI:SS') FROM schema_migrations ORDER BY version";
  const out = await exec('docker', [
    'exec',
    '--user',
    '70',
    postgres.id,
    'psql',
    '--no-psqlrc',
    '--tuples-only',
    '--no-align',
    '--username=postgres',
    '--command',
    sql,
  ]);
  say('The migrations PostgreSQL recorded (schema_migrations: version, applied at)');
  process.stdout.write(
    out.code === 0 ? out.stdout.toString('utf8') : `psql exited ${out.code}: ${out.stderr.trim()}\n`,
  );
}

async function requireTools(): Promise<void> {
  const info = await exec('docker', ['info', '--format', '{{.ServerVersion}}']).catch((e: Error) => ({
    code: 127,
    stderr: e.message,
  }));
  // Expected on a machine not set up yet: a typed refusal (exit 2) that says what to run, never a stack trace.
  const missing = (what: string) =>
    new ToolkitError(
      'missing-tools',
      `The demo needs ${what}: run scripts/install-tools.sh (it installs and starts what is missing on Debian as root, and lists it elsewhere)`,
      { exitCode: 2 },
    );
  if (info.code !== 0) throw missing(`a running Docker Engine (${info.stderr.trim().split('\n')[0]})`);
  for (const file of [
    '/bin/busybox',
    '/usr/bin/docker-registry',
    '/usr/lib/postgresql/15/bin/postgres',
    '/usr/bin/setpriv',
  ]) {
    if ((await exec('test', ['-x', file])).code !== 0) throw missing(file);
  }
  process.stdout.write(`compose: ${(await detectCompose(process.env.HEPHAESTUS_COMPOSE)).join(' ')}\n`);
}

async function showHost(title: string): Promise<void> {
  const docker = dockerPort();
  const rows: string[][] = [];
  for (const stack of STACKS) {
    for (const c of await docker.containers({ 'com.docker.compose.project': `${PREFIX}${stack}` })) {
      if (c.oneoff) continue;
      rows.push([
        `${PREFIX}${stack}`,
        c.service,
        c.status + (c.health === undefined ? '' : ` (${c.health})`),
        c.id.slice(0, 12),
        c.image.replace(/@sha256:(.{12}).*$/, '@sha256:$1…'),
      ]);
    }
  }
  say(title);
  process.stdout.write(formatTable(['PROJECT', 'SERVICE', 'STATE', 'CONTAINER', 'IMAGE'], rows));
}

const cmd = command({
  name: 'demo',
  description:
    'Prints the fingerprint table of examples/platform, then runs the pull-deployment loop on this machine: builds the example images on\n' +
    "locally imported bases (busybox; PostgreSQL 15 from this machine's Debian packages), pushes them to a local registry on a free\n" +
    'loopback port, signs a release lock and a channel with a local key, runs a tick that installs it (the database migrated with psql),\n' +
    'promotes a new commit with a new SQL migration, runs a tick (migrate -> stop worker -> up) and shows what runs.\n' +
    "Needs Docker Engine, Compose, /usr/bin/docker-registry, /bin/busybox and Debian's postgresql (15). Cleans up after itself.\n" +
    'Exit status: 0 done, 1 failure, 2 a tool missing.',
  args: {
    keep: flag({ long: 'keep', description: 'leave the demo containers running (remove them with another run)' }),
  },
  handler: async ({ keep }) => {
    say('1. Fingerprints of examples/platform');
    await must('fingerprint.ts', script('fingerprint.ts', ['--repo', EXAMPLE]));
    say('2. Tools: Docker Engine, Compose, docker-registry, busybox, PostgreSQL 15');
    await requireTools();
    await removeDemoProjects();
    const dir = await mkdtemp(join(tmpdir(), 'hephaestus-demo-'));
    const pushed: string[] = [];
    let registry: DemoRegistry | undefined;
    try {
      say('3. Base images, local registry, platform repository');
      process.stdout.write(`base image pharos/base:local: ${await ensureBaseImage()}\n`);
      process.stdout.write(`base image ${POSTGRES_BASE_IMAGE}: ${await ensurePostgresBaseImage()}\n`);
      registry = await startRegistry(dir);
      process.stdout.write(`registry: ${registry.host}\n`);
      const repo = await makeDemoRepo(exec, dir, EXAMPLE);
      const v1 = await repo.git(['rev-parse', 'HEAD']);
      await repo.git(['tag', 'v1.0.0', v1]);
      await repo.git(['push', '--quiet', 'origin', 'refs/tags/v1.0.0']);

      say('4. Build and push v1.0.0, sign its release lock and a channel');
      const images = await buildAndPush(exec, registry, repo.work, 'v1.0.0', (ref) => pushed.push(ref));
      for (const [variable, ref] of Object.entries(images)) process.stdout.write(`${variable}=${ref}\n`);
      // Two roles, two keys: the release key signs locks, the promotion key signs channels; the host trusts each for its own.
      const [releaseKey, releasePub] = await writeKeyPair(dir, 'release');
      const [keyFile, pubFile] = await writeKeyPair(dir, 'promote');
      const lock = serializeLock({ schemaVersion: 1, release: 'v1.0.0', commit: v1, images });
      const signer = loadSigningKey(await readFile(releaseKey), releaseKey);
      await publishOnDeployState(
        exec,
        repo.remote,
        {
          'locks/release-v1.0.0.json': lock,
          'locks/release-v1.0.0.json.sigstore.json': signWithKey(Buffer.from(lock), signer),
        },
        'release v1.0.0 lock',
      );
      const promote = (args: readonly string[]) =>
        must(
          'promote.ts',
          script('promote.ts', [
            '--repo',
            repo.remote,
            '--env',
            'demo',
            '--key',
            keyFile,
            '--lock-file',
            join(dir, 'promote.lock'),
            ...args,
          ]),
        );
      await promote(['--release', 'v1.0.0']);

      const etc = join(dir, 'etc');
      const events = join(dir, 'host', 'events');
      await mkdir(etc, { recursive: true });
      await mkdir(events, { recursive: true });
      // The per-stack env files (0600) hold the host's secrets: the database password is made here, never baked into an image.
      const stackEnv = `PHAROS_EVENTS_DIR=${events}\nPHAROS_DATABASE_PASSWORD=${randomBytes(16).toString('hex')}\nPHAROS_DATABASE_NETWORK=${DATABASE_NETWORK}\n`;
      for (const stack of STACKS) await writeFile(join(etc, `${stack}.env`), stackEnv, { mode: 0o600 });
      const hostEnv = {
        HEPHAESTUS_CHANNEL: 'demo',
        HEPHAESTUS_REPOSITORY: repo.remote,
        HEPHAESTUS_PROMOTE_KEYS: pubFile,
        HEPHAESTUS_RELEASE_KEYS: releasePub,
        HEPHAESTUS_ROOT: join(dir, 'host'),
        HEPHAESTUS_ETC: etc,
        HEPHAESTUS_STACKS: STACKS.join(' '),
        HEPHAESTUS_PROJECT_PREFIX: PREFIX,
        HEPHAESTUS_WAIT_TIMEOUT: '60',
      };
      say('5. Tick: first install of v1.0.0');
      await must('reconcile-deployment.ts', script('reconcile-deployment.ts', [], hostEnv));
      await showHost('What the host runs');
      await showMigrations();

      say('6. A new commit on main with a new SQL migration: build, push, promote its commit channel');
      await writeFile(join(repo.work, 'contracts', 'schema-version'), '2\n');
      await writeFile(
        join(repo.work, 'services', 'worker', 'migrations', '0003_job_priority.sql'),
        'ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;\n',
      );
      await repo.git(['add', '-A']);
      await repo.git(['commit', '--quiet', '-m', 'schema 2: job priority']);
      await repo.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
      const v2 = await repo.git(['rev-parse', 'HEAD']);
      const next = await buildAndPush(exec, registry, repo.work, 'c2', (ref) => pushed.push(ref));
      const imagesFile = join(dir, 'images.json');
      await writeFile(imagesFile, JSON.stringify(next));
      await promote(['--commit', v2, '--images-file', imagesFile]);
      const mark = (await readFile(join(events, 'log'), 'utf8').catch(() => '')).split('\n').length - 1;

      say(`7. Tick: upgrade to commit ${v2.slice(0, 12)} (migrate -> stop worker -> up)`);
      await must('reconcile-deployment.ts', script('reconcile-deployment.ts', [], hostEnv));
      say('What the containers wrote during that tick (uptime, time, service, event, version)');
      const lines = (await readFile(join(events, 'log'), 'utf8'))
        .split('\n')
        .slice(mark)
        .filter((l) => l !== '');
      process.stdout.write(
        `${lines
          .map((l) =>
            l
              .split(' ')
              .slice(0, 5)
              .map((f) => (/^[0-9a-f]{40}$/.test(f) ? f.slice(0, 12) : f))
              .join(' '),
          )
          .join('\n')}\n`,
      );
      await showHost('What the host runs now');
      await showMigrations();
      process.stdout.write(`\napplied.json:\n${await readFile(join(dir, 'host', 'applied.json'), 'utf8')}`);
      if (keep) process.stdout.write(`\nContainers kept (--keep); the next run removes them.\n`);
    } finally {
      if (!keep) await removeDemoProjects();
      await registry?.stop();
      if (pushed.length > 0) await exec('docker', ['image', 'rm', ...pushed]);
      await exec('rm', ['-rf', dir]);
    }
  },
});

await runCli('demo', cmd);
