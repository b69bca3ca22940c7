import { randomBytes } from 'node:crypto';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { repoPathOnDiskProblem } from '../catalogue/repo-path-on-disk.ts';
import { execOk } from '../ports/exec.ts';
import type { Exec } from '../ports/exec.ts';
import { gitEnv } from '../ports/git.ts';
import type { DemoRegistry } from './local-registry.ts';

const AUTHOR = {
  GIT_AUTHOR_NAME: 'demo',
  GIT_AUTHOR_EMAIL: 'demo@example.invalid',
  GIT_COMMITTER_NAME: 'demo',
  GIT_COMMITTER_EMAIL: 'demo@example.invalid',
};

/** The host's images of the example platform: variable -> Dockerfile and target. */
export const DEMO_IMAGES = [
  {
    variable: 'HEPHAESTUS_IMAGE_API',
    repository: 'pharos/api',
    dockerfile: 'services/api/Dockerfile',
    target: undefined,
  },
  {
    variable: 'HEPHAESTUS_IMAGE_WORKER',
    repository: 'pharos/worker',
    dockerfile: 'services/worker/Dockerfile',
    target: 'worker',
  },
  {
    variable: 'HEPHAESTUS_IMAGE_MIGRATE',
    repository: 'pharos/migrate',
    dockerfile: 'services/worker/Dockerfile',
    target: 'migrate',
  },
  {
    variable: 'HEPHAESTUS_IMAGE_POSTGRES',
    repository: 'pharos/postgres',
    dockerfile: 'docker/postgres/Dockerfile',
    target: undefined,
  },
] as const;

/** A platform repository (bare remote plus a working clone) holding a copy of examples/platform. */
export async function makeDemoRepo(
  run: Exec,
  dir: string,
  example: string,
): Promise<{ remote: string; work: string; git: (args: readonly string[]) => Promise<string> }> {
  const remote = join(dir, 'platform.git');
  const work = join(dir, 'work');
  const env = gitEnv(AUTHOR);
  await execOk(run, 'git', ['init', '--quiet', '--bare', '--initial-branch=main', remote], { env });
  await execOk(run, 'git', ['init', '--quiet', '--initial-branch=main', work], { env });
  const git = async (args: readonly string[]) =>
    (await execOk(run, 'git', ['-C', work, ...args], { env })).stdout.toString('utf8').trim();
  await git(['remote', 'add', 'origin', remote]);
  await cp(example, work, { recursive: true });
  await git(['add', '-A']);
  await git(['commit', '--quiet', '-m', 'example platform']);
  await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
  return { remote, work, git };
}

/** Builds the host images from `context` with the classic builder (nothing pulled), pushes them, returns variable -> digest reference. */
export async function buildAndPush(
  run: Exec,
  registry: DemoRegistry,
  context: string,
  label: string,
  onImage: (ref: string) => void,
): Promise<Record<string, string>> {
  const images: Record<string, string> = {};
  const env = { ...process.env, DOCKER_BUILDKIT: '0' };
  for (const image of DEMO_IMAGES) {
    // The same rule as every build: the Dockerfile is read inside the context, through no symlink.
    const unsafe = await repoPathOnDiskProblem(context, image.dockerfile, 'file');
    if (unsafe !== undefined) throw new Error(`Cannot build ${image.repository}: ${unsafe}`);
    const tag = `${registry.host}/${image.repository}:${label}`;
    const args = [
      'build',
      '--quiet',
      '--force-rm',
      '--label',
      `pharos.demo=${label}`,
      '--file',
      join(context, image.dockerfile),
      '--tag',
      tag,
      ...(image.target === undefined ? [] : ['--target', image.target]),
      context,
    ];
    await execOk(run, 'docker', args, { env });
    await execOk(run, 'docker', ['push', '--quiet', tag]);
    images[image.variable] = `${registry.host}/${image.repository}@${await registry.digest(image.repository, label)}`;
    onImage(tag);
  }
  return images;
}

/** Commits files onto deploy-state of the bare remote with plumbing (as the release workflow publishes locks). */
export async function publishOnDeployState(
  run: Exec,
  remote: string,
  files: Record<string, string>,
  message: string,
): Promise<void> {
  const env = gitEnv({ ...AUTHOR, GIT_INDEX_FILE: join(remote, `publish-${randomBytes(4).toString('hex')}.index`) });
  const g = async (args: readonly string[], input?: string) =>
    (await execOk(run, 'git', ['-C', remote, ...args], { env, input })).stdout.toString('utf8').trim();
  const tip = await run('git', ['-C', remote, 'rev-parse', '--verify', '--quiet', 'refs/heads/deploy-state'], { env });
  const parent = tip.code === 0 ? tip.stdout.toString('utf8').trim() : undefined;
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
    message,
  ]);
  await g(['update-ref', 'refs/heads/deploy-state', commit]);
}
