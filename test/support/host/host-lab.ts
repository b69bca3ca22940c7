// A real host lab: the example platform in a Git repository, a local registry, images built on the local bases (busybox, PostgreSQL 15),
// signed locks and channels on deploy-state, and host roots that run reconcile-deployment.ts against Docker Compose.
import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { serializeLock } from '../../../scripts/lib/lock/parse-lock.ts';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { gitEnv } from '../../../scripts/lib/ports/git.ts';
import { dockerPort } from '../../../scripts/lib/ports/docker.ts';
import type { ContainerInfo } from '../../../scripts/lib/ports/docker.ts';
import { loadSigningKey, signWithKey } from '../../../scripts/lib/signing/sign-with-key.ts';
import { startRegistry } from '../../../scripts/lib/demo/local-registry.ts';
import type { DemoRegistry } from '../../../scripts/lib/demo/local-registry.ts';
import { makePlatformRepo, runScript } from '../platform-repo.ts';
import type { PlatformRepo } from '../platform-repo.ts';
import { writeKeyPair } from '../signing-keys.ts';
import { EXAMPLE_DIR, buildHostImages } from './example-images.ts';
import { readEvents } from './events.ts';
import type { HostEvent } from './events.ts';

const WRITER = {
  GIT_AUTHOR_NAME: 'release',
  GIT_AUTHOR_EMAIL: 'r@example.invalid',
  GIT_COMMITTER_NAME: 'release',
  GIT_COMMITTER_EMAIL: 'r@example.invalid',
};

export interface TickResult {
  readonly code: number;
  readonly stderr: string;
  readonly result: string;
  readonly reason: string | null;
  readonly target: string | null;
  readonly message: string;
  /** Journal lines, one per step: `<step> step=N status=… …`. */
  readonly journal: readonly string[];
}

export interface Host {
  readonly environment: string;
  readonly root: string;
  readonly etc: string;
  readonly env: NodeJS.ProcessEnv;
  readonly projects: readonly string[];
  tick(extra?: NodeJS.ProcessEnv): Promise<TickResult>;
  applied(): Promise<Record<string, unknown> | undefined>;
  appliedBytes(): Promise<string | undefined>;
  metrics(): Promise<string>;
  /** Containers of this host's projects (running or not, one-off excluded), by compose labels. */
  containers(): Promise<ContainerInfo[]>;
  /** service -> container id and image of the running containers. */
  running(): Promise<Record<string, { id: string; image: string }>>;
  events(): Promise<HostEvent[]>;
  /** The database password and network name this host's stack env files give Compose. */
  readonly database: { readonly password: string; readonly network: string };
  /** Runs SQL with psql inside the running postgres container; returns its unaligned output. */
  psql(sql: string): Promise<string>;
}

/** Which of the lab's two signing keys. */
export type Role = 'promote' | 'release';

export interface HostLab {
  readonly repo: PlatformRepo;
  readonly registry: DemoRegistry;
  /** The promotion key (channels) and its public key. */
  readonly key: string;
  readonly pub: string;
  /** The release key (locks), a separate role, and its public key. */
  readonly releaseKey: string;
  readonly releasePub: string;
  /** Commits files on main (a `null` content deletes), optionally with a committer date; returns the SHA. */
  commit(files: Record<string, string | null>, message: string, date?: string): Promise<string>;
  tag(name: string, commit: string): Promise<void>;
  /** Builds and pushes the example images with their own digests. */
  build(label: string, options?: Parameters<typeof buildHostImages>[2]): Promise<Record<string, string>>;
  /** Signs a schema-1 lock for `tag` (with the release key unless told otherwise) and publishes it on deploy-state `locks/`. */
  publishLock(tag: string, commit: string, images: Record<string, string>, options?: { signer?: Role }): Promise<void>;
  promote(environment: string, args: readonly string[]): Promise<void>;
  /** Commits files onto deploy-state as the release workflow would (e.g. a joint chart lock and its bundles). */
  publishFiles(files: Record<string, string | Buffer>): Promise<void>;
  /** Signs and publishes a channel by hand (next version, 7 days), as a writer who bypasses promote.ts's own rules would. */
  signChannel(environment: string, body: Record<string, unknown>, options?: { signer?: Role }): Promise<void>;
  /** A commit channel for `commit` with these images. */
  promoteCommit(
    environment: string,
    commit: string,
    images: Record<string, string>,
    args?: readonly string[],
  ): Promise<void>;
  host(environment: string, options?: { stacks?: string; waitTimeout?: number }): Promise<Host>;
  cleanup(): Promise<void>;
}

/** Fails loudly when Docker is absent: these tests never skip. */
async function requireDocker(): Promise<void> {
  const info = await exec('docker', ['info', '--format', '{{.ServerVersion}}']).catch((error: Error) => ({
    code: -1,
    stderr: error.message,
  }));
  if (info.code !== 0)
    throw new Error(`Docker Engine is required for the host tests and is not usable: ${info.stderr.trim()}`);
}

export async function makeHostLab(): Promise<HostLab> {
  await requireDocker();
  const repo = await makePlatformRepo();
  await mkdir(join(repo.root, 'registry'));
  const registry = await startRegistry(join(repo.root, 'registry'));
  const suffix = randomBytes(3).toString('hex');
  const { key, pub } = writeKeyPair(repo.root, 'promote');
  const release = writeKeyPair(repo.root, 'release');
  const releaseSigner = loadSigningKey(await readFile(release.key), release.key);
  const signer = loadSigningKey(await readFile(key), key);
  await cp(EXAMPLE_DIR, repo.work, { recursive: true });
  await repo.git(['add', '-A']);
  await repo.git(['commit', '--quiet', '-m', 'example platform']);
  await repo.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
  const hosts: Host[] = [];
  const builtRefs: string[] = [];

  const gitRemote = async (args: readonly string[], env: NodeJS.ProcessEnv, input?: string | Buffer) =>
    (await execOk(exec, 'git', ['-C', repo.remote, ...args], { env, input })).stdout.toString('utf8').trim();
  const publish = async (files: Record<string, string | Buffer>) => {
    const tip = await exec('git', ['-C', repo.remote, 'rev-parse', '--verify', '--quiet', 'refs/heads/deploy-state']);
    const parent = tip.code === 0 ? tip.stdout.toString('utf8').trim() : undefined;
    const env = gitEnv({
      ...WRITER,
      GIT_INDEX_FILE: join(repo.root, `publish-${randomBytes(4).toString('hex')}.index`),
    });
    await gitRemote(parent === undefined ? ['read-tree', '--empty'] : ['read-tree', parent], env);
    for (const [path, content] of Object.entries(files)) {
      const oid = await gitRemote(['hash-object', '-w', '--stdin'], env, content);
      await gitRemote(['update-index', '--add', '--cacheinfo', `100644,${oid},${path}`], env);
    }
    const tree = await gitRemote(['write-tree'], env);
    const commit = await gitRemote(
      ['commit-tree', tree, ...(parent === undefined ? [] : ['-p', parent]), '-m', 'release lock'],
      env,
    );
    await gitRemote(['update-ref', 'refs/heads/deploy-state', commit], env);
  };
  const promoteRun = async (environment: string, args: readonly string[]) => {
    const result = await runScript('promote.ts', [
      '--repo',
      repo.remote,
      '--env',
      environment,
      '--key',
      key,
      '--json',
      '--lock-file',
      join(repo.root, `promote-${environment}.lock`),
      ...args,
    ]);
    if (result.code !== 0) throw new Error(`promote.ts ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  };

  const lab: HostLab = {
    repo,
    registry,
    key,
    pub,
    releaseKey: release.key,
    releasePub: release.pub,
    commit: async (files, message, date) => {
      for (const [path, content] of Object.entries(files)) {
        if (content === null) await repo.git(['rm', '--quiet', path]);
        else {
          await mkdir(join(repo.work, path, '..'), { recursive: true });
          await writeFile(join(repo.work, path), content);
          await repo.git(['add', path]);
        }
      }
      const env = gitEnv({
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.invalid',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.invalid',
        ...(date === undefined ? {} : { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date }),
      });
      await execOk(exec, 'git', ['-C', repo.work, 'commit', '--quiet', '--allow-empty', '-m', message], { env });
      await repo.git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
      return repo.git(['rev-parse', 'HEAD']);
    },
    tag: (name, commit) => repo.tag(name, commit),
    build: async (label, options) => {
      const images = await buildHostImages(registry, label, options);
      builtRefs.push(...Object.values(images).map((ref) => ref.replace(/@sha256:.*$/, `:${label}`)));
      return images;
    },
    publishLock: async (tag, commit, images, options = {}) => {
      const bytes = serializeLock({ schemaVersion: 1, release: tag, commit, images });
      const by = (options.signer ?? 'release') === 'release' ? releaseSigner : signer;
      await publish({
        [`locks/release-${tag}.json`]: bytes,
        [`locks/release-${tag}.json.sigstore.json`]: signWithKey(Buffer.from(bytes), by),
      });
    },
    promote: promoteRun,
    publishFiles: publish,
    signChannel: async (environment, body, options = {}) => {
      const file = `channels/${environment}.json`;
      const current = await exec('git', ['-C', repo.remote, 'cat-file', 'blob', `deploy-state:${file}`]);
      const version =
        current.code === 0 ? (JSON.parse(current.stdout.toString('utf8')) as { version: number }).version + 1 : 1;
      const now = Date.now();
      const channel = {
        schema: 2,
        environment,
        version,
        issued: new Date(now).toISOString(),
        expires: new Date(now + 7 * 86_400_000).toISOString(),
        freeze: false,
        ...body,
      };
      const bytes = `${JSON.stringify(channel, null, 2)}\n`;
      const by = (options.signer ?? 'promote') === 'promote' ? signer : releaseSigner;
      await publish({ [file]: bytes, [`${file}.sigstore.json`]: signWithKey(Buffer.from(bytes), by) });
    },
    promoteCommit: async (environment, commit, images, args = []) => {
      const file = join(repo.root, `images-${randomBytes(4).toString('hex')}.json`);
      await writeFile(file, JSON.stringify(images));
      await promoteRun(environment, ['--commit', commit, '--images-file', file, ...args]);
    },
    host: async (environment, options = {}) => {
      const root = join(repo.root, `host-${environment}`);
      const etc = join(repo.root, `etc-${environment}`);
      const eventsDir = join(root, 'events');
      await mkdir(eventsDir, { recursive: true });
      await chmod(root, 0o750); // the host refuses a root its group could write, whatever the umask made
      await mkdir(etc, { recursive: true });
      const stacks = options.stacks ?? 'core app';
      const prefix = `h${suffix}${environment}-`;
      // The seed's per-stack env files (0600) carry the deployment secrets: here the database password and network name.
      const database = { password: randomBytes(12).toString('hex'), network: `${prefix}database` };
      const stackEnv = `PHAROS_EVENTS_DIR=${eventsDir}\nPHAROS_DATABASE_PASSWORD=${database.password}\nPHAROS_DATABASE_NETWORK=${database.network}\n`;
      for (const stack of stacks.split(' ')) await writeFile(join(etc, `${stack}.env`), stackEnv, { mode: 0o600 });
      const projects = stacks.split(' ').map((s) => `${prefix}${s}`);
      const env: NodeJS.ProcessEnv = {
        HEPHAESTUS_CHANNEL: environment,
        HEPHAESTUS_REPOSITORY: repo.remote,
        HEPHAESTUS_PROMOTE_KEYS: pub,
        HEPHAESTUS_RELEASE_KEYS: release.pub,
        HEPHAESTUS_ROOT: root,
        HEPHAESTUS_ETC: etc,
        HEPHAESTUS_STACKS: stacks,
        HEPHAESTUS_PROJECT_PREFIX: prefix,
        HEPHAESTUS_WAIT_TIMEOUT: String(options.waitTimeout ?? 60),
      };
      const docker = dockerPort();
      const containers = async () =>
        (await Promise.all(projects.map((p) => docker.containers({ 'com.docker.compose.project': p }))))
          .flat()
          .filter((c) => !c.oneoff);
      const host: Host = {
        environment,
        root,
        etc,
        env,
        projects,
        tick: async (extra = {}) => {
          const run = await runScript('reconcile-deployment.ts', ['--json'], { ...env, ...extra });
          const parsed = run.out.trim() === '' ? {} : (JSON.parse(run.out) as Record<string, unknown>);
          const journal = run.stderr
            .split('\n')
            .filter((l) => l.startsWith('reconcile-deployment: '))
            .map((l) => l.slice('reconcile-deployment: '.length));
          return {
            code: run.code,
            stderr: run.stderr,
            journal,
            result: String(parsed.result ?? ''),
            reason: (parsed.reason as string | null) ?? null,
            target: (parsed.target as string | null) ?? null,
            message: String(parsed.message ?? ''),
          };
        },
        applied: async () => {
          const text = await host.appliedBytes();
          return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
        },
        appliedBytes: () => readFile(join(root, 'applied.json'), 'utf8').catch(() => undefined),
        metrics: () => readFile(join(root, 'metrics', 'hephaestus.prom'), 'utf8'),
        containers,
        running: async () =>
          Object.fromEntries(
            (await containers()).filter((c) => c.running).map((c) => [c.service, { id: c.id, image: c.image }]),
          ),
        events: () => readEvents(join(eventsDir, 'log')),
        database,
        psql: async (sql) => {
          const postgres = (await containers()).find((c) => c.service === 'postgres' && c.running);
          if (postgres === undefined) throw new Error(`No running postgres container in ${projects.join(', ')}`);
          // UID 70 over the local socket (peer authentication): the password is for network logins.
          const run = await execOk(exec, 'docker', [
            'exec',
            '--user',
            '70',
            postgres.id,
            'psql',
            '--no-psqlrc',
            '--tuples-only',
            '--no-align',
            '--set=ON_ERROR_STOP=1',
            '--username=postgres',
            '--command',
            sql,
          ]);
          return run.stdout.toString('utf8').trim();
        },
      };
      hosts.push(host);
      return host;
    },
    cleanup: async () => {
      const docker = dockerPort();
      for (const host of hosts) {
        for (const project of host.projects) {
          const ids = (await docker.containers({ 'com.docker.compose.project': project })).map((c) => c.id);
          if (ids.length > 0) await exec('docker', ['rm', '--force', '--volumes', ...ids]);
          await exec('docker', ['network', 'rm', `${project.replace(/[^a-z0-9_-]/g, '')}_default`]);
          await exec('docker', ['volume', 'rm', `${project.replace(/[^a-z0-9_-]/g, '')}_data`]);
        }
        await exec('docker', ['network', 'rm', host.database.network]);
      }
      if (builtRefs.length > 0) await exec('docker', ['image', 'rm', ...builtRefs]);
      await registry.stop();
      // Containers wrote the events log as root: remove what is left through a container-free path.
      await exec('rm', ['-rf', repo.root]);
    },
  };
  return lab;
}
