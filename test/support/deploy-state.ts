// A real deploy-state scenario: a platform repository, promote.ts writing signed channels, a host root, and an attacker's clone.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { channelIdentity } from '../../scripts/lib/channel/channel-identity.ts';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import { gitEnv } from '../../scripts/lib/ports/git.ts';
import { makePlatformRepo, runScript } from './platform-repo.ts';
import type { PlatformRepo } from './platform-repo.ts';
import { writeKeyPair } from './signing-keys.ts';

export interface PlanOutput {
  readonly code: number;
  readonly stderr: string;
  readonly decision: string;
  readonly reason: string;
  readonly environment: string | null;
  readonly version: number | null;
  readonly target: { release?: string; commit?: string } | null;
  readonly deployStateCommit: string;
}

export interface Scenario {
  readonly repo: PlatformRepo;
  /** Commits on main, oldest first; v1.0.0 tags commits[0], v1.1.0 commits[1], v1.2.0 commits[2]. */
  readonly commits: readonly string[];
  readonly key: string;
  readonly pub: string;
  readonly hostRoot: (env: string) => string;
  promote(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string; stderr: string }>;
  runRefresh(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string; stderr: string }>;
  plan(environment: string, env?: NodeJS.ProcessEnv): Promise<PlanOutput>;
  /** Writes applied.json as a successful apply of `plan` would. */
  recordApplied(environment: string, plan: PlanOutput): Promise<void>;
  /** Reads a file of deploy-state at its tip (or at `rev`). */
  show(path: string, rev?: string): Promise<Buffer>;
  /** Commits files on deploy-state (on its tip, or on `parent` to rewrite history) as a writer with push access or a hostile mirror would. */
  tamper(files: Record<string, Buffer | string>, options?: { parent?: string }): Promise<string>;
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'mallory',
  GIT_AUTHOR_EMAIL: 'm@example.invalid',
  GIT_COMMITTER_NAME: 'mallory',
  GIT_COMMITTER_EMAIL: 'm@example.invalid',
};

export async function makeScenario(): Promise<Scenario> {
  const repo = await makePlatformRepo();
  const commits: string[] = [];
  for (const [i, tag] of ['v1.0.0', 'v1.1.0', 'v1.2.0'].entries()) {
    commits.push(await repo.commitOnMain(`release ${i}`));
    await repo.tag(tag, commits[i] ?? '');
  }
  commits.push(await repo.commitOnMain('after releases'));
  const { key, pub } = writeKeyPair(repo.root, 'promote');
  const hostRoot = (env: string) => join(repo.root, `host-${env}`);
  const git = async (args: readonly string[], input?: Buffer | string) =>
    (await execOk(exec, 'git', ['-C', repo.remote, ...args], { env: gitEnv(AUTHOR), input })).stdout;
  const hostEnv = (environment: string): NodeJS.ProcessEnv => ({
    HEPHAESTUS_CHANNEL: environment,
    HEPHAESTUS_REPOSITORY: repo.remote,
    HEPHAESTUS_TRUSTED_KEYS: pub,
    HEPHAESTUS_ROOT: hostRoot(environment),
    HEPHAESTUS_ETC: join(repo.root, `etc-${environment}`),
  });
  const scenario: Scenario = {
    repo,
    commits,
    key,
    pub,
    hostRoot,
    promote: async (args, env = {}) => runScript('promote.ts', ['--repo', repo.remote, '--json', ...args], env),
    runRefresh: async (args, env = {}) =>
      runScript('promote.ts', ['refresh', '--repo', repo.remote, '--json', ...args], env),
    plan: async (environment, env = {}) => {
      const result = await runScript('reconcile-deployment.ts', ['--plan', '--json'], {
        ...hostEnv(environment),
        ...env,
      });
      if (result.out.trim() === '') throw new Error(`--plan printed nothing (exit ${result.code}): ${result.stderr}`);
      return { code: result.code, stderr: result.stderr, ...JSON.parse(result.out) };
    },
    recordApplied: async (environment, plan) => {
      const file = `channels/${environment}.json`;
      const [bytes, bundle] = [
        await scenario.show(file, plan.deployStateCommit),
        await scenario.show(`${file}.sigstore.json`, plan.deployStateCommit),
      ];
      const release = plan.target?.release;
      const commit =
        release !== undefined ? commits[['v1.0.0', 'v1.1.0', 'v1.2.0'].indexOf(release)] : plan.target?.commit;
      const record = {
        schema: 2,
        ...(release === undefined ? {} : { release }),
        commit,
        channelCommit: plan.deployStateCommit,
        channelVersion: plan.version,
        channelIdentity: channelIdentity(bytes, bundle),
        appliedAt: new Date().toISOString(),
      };
      await mkdir(hostRoot(environment), { recursive: true });
      await writeFile(join(hostRoot(environment), 'applied.json'), JSON.stringify(record));
    },
    show: async (path, rev = 'deploy-state') => git(['cat-file', 'blob', `${rev}:${path}`]),
    tamper: async (files, options = {}) => {
      const tip = await exec('git', ['-C', repo.remote, 'rev-parse', '--verify', '--quiet', 'refs/heads/deploy-state']);
      const parent = options.parent ?? (tip.code === 0 ? tip.stdout.toString('utf8').trim() : undefined);
      const index = join(repo.root, `tamper-${Date.now()}.index`);
      const env = gitEnv({ ...AUTHOR, GIT_INDEX_FILE: index });
      const g = async (args: readonly string[], input?: Buffer | string) =>
        (await execOk(exec, 'git', ['-C', repo.remote, ...args], { env, input })).stdout.toString('utf8').trim();
      await g(parent === undefined ? ['read-tree', '--empty'] : ['read-tree', parent]);
      for (const [path, content] of Object.entries(files)) {
        const oid = await g(['hash-object', '-w', '--stdin'], content);
        await g(['update-index', '--add', '--cacheinfo', `100644,${oid},${path}`]);
      }
      const commit = await g([
        'commit-tree',
        await g(['write-tree']),
        ...(parent === undefined ? [] : ['-p', parent]),
        '-m',
        'tamper',
      ]);
      await g(['update-ref', 'refs/heads/deploy-state', commit]);
      return commit;
    },
  };
  return scenario;
}
