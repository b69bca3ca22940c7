import { z } from 'zod';
import { exec as realExec } from './exec.ts';
import type { Exec, ExecResult } from './exec.ts';
import { ToolkitError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';

export class DockerError extends ToolkitError<'docker-failed' | 'pull-failed'> {}

const inspectSchema = z.array(
  z.looseObject({
    Id: z.string(),
    Name: z.string(),
    Created: z.string(),
    State: z.looseObject({
      Status: z.string(),
      Running: z.boolean(),
      ExitCode: z.number(),
      StartedAt: z.string(),
      Health: z.looseObject({ Status: z.string() }).nullable().optional(),
    }),
    Config: z.looseObject({ Image: z.string(), Labels: z.record(z.string(), z.string()).nullable() }),
  }),
);

/** A container as Compose labelled it: found by `com.docker.compose.*` labels, never by name. */
export interface ContainerInfo {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly service: string;
  readonly oneoff: boolean;
  readonly image: string;
  readonly status: string;
  readonly running: boolean;
  readonly exitCode: number;
  /** healthy, unhealthy, starting; undefined without a healthcheck. */
  readonly health: string | undefined;
  readonly startedAt: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A local image: its id, the tags and the repository digests it is known by. */
export interface ImageInfo {
  readonly id: string;
  readonly tags: readonly string[];
  /** `<repository>@sha256:<hex>` for every digest it was pulled or pushed by. */
  readonly digests: readonly string[];
}

const imageInspectSchema = z.array(
  z.looseObject({
    Id: z.string(),
    RepoTags: z.array(z.string()).nullable().optional(),
    RepoDigests: z.array(z.string()).nullable().optional(),
  }),
);

export interface Docker {
  imagePresent(reference: string): Promise<boolean>;
  /** The image id a reference resolves to locally, or undefined when the host does not hold it. */
  imageId(reference: string): Promise<string | undefined>;
  /** Every local image (`docker image ls --all`), with its tags and repository digests. */
  images(): Promise<ImageInfo[]>;
  /** `docker image rm <reference>`, never forced: Docker refuses an image a container uses; returns why, if it did. */
  removeImage(reference: string): Promise<{ readonly removed: boolean; readonly reason?: string }>;
  /** Docker's data root (`docker info` DockerRootDir): the file system pulls fill. */
  dataRoot(): Promise<string>;
  pull(reference: string, timeoutMs: number): Promise<void>;
  /** Every container (running or not) carrying all the given labels. */
  containers(labels: Readonly<Record<string, string>>): Promise<ContainerInfo[]>;
}

export function dockerPort(run: Exec = realExec): Docker {
  const fail = (action: string, stderr: string, code: number) =>
    new DockerError(
      'docker-failed',
      `Cannot ${action}: docker exited ${code}: ${stderr.trim().split('\n').slice(-2).join(' / ')}`,
    );
  return {
    imagePresent: async (reference) =>
      (await run('docker', ['image', 'inspect', '--format', '{{.Id}}', reference])).code === 0,
    imageId: async (reference) => {
      const result = await run('docker', ['image', 'inspect', '--format', '{{.Id}}', reference]);
      return result.code === 0 ? result.stdout.toString('utf8').trim() : undefined;
    },
    images: async () => {
      const listed = await run('docker', ['image', 'ls', '--all', '--quiet', '--no-trunc']);
      if (listed.code !== 0) throw fail('list images', listed.stderr, listed.code);
      const ids = [
        ...new Set(
          listed.stdout
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        ),
      ];
      if (ids.length === 0) return [];
      const result = await run('docker', ['image', 'inspect', ...ids]);
      // An image removed between listing and inspecting fails the inspect, which still prints every image it found.
      const text = result.stdout.toString('utf8').trim();
      if (result.code !== 0 && !text.startsWith('[')) throw fail('inspect images', result.stderr, result.code);
      const json: unknown = JSON.parse(text === '' ? '[]' : text);
      const parsed = imageInspectSchema.safeParse(json);
      if (!parsed.success)
        throw new DockerError(
          'docker-failed',
          `Cannot read docker image inspect output:\n${describeZodIssues('docker image inspect', json, parsed.error).join('\n')}`,
        );
      return parsed.data.map((i) => ({ id: i.Id, tags: i.RepoTags ?? [], digests: i.RepoDigests ?? [] }));
    },
    removeImage: async (reference) => {
      const result = await run('docker', ['image', 'rm', reference]);
      return result.code === 0
        ? { removed: true }
        : { removed: false, reason: result.stderr.trim().split('\n').slice(-1)[0] ?? `exit ${result.code}` };
    },
    dataRoot: async () => {
      const result = await run('docker', ['info', '--format', '{{json .DockerRootDir}}']);
      if (result.code !== 0) throw fail("read Docker's data root", result.stderr, result.code);
      const root = z
        .string()
        .startsWith('/')
        .safeParse(JSON.parse(result.stdout.toString('utf8')));
      if (!root.success)
        throw new DockerError(
          'docker-failed',
          `Cannot read Docker's data root: docker info printed ${JSON.stringify(result.stdout.toString('utf8').slice(0, 80))}`,
        );
      return root.data;
    },
    pull: async (reference, timeoutMs) => {
      const result = await run('docker', ['pull', '--quiet', reference], { timeoutMs });
      if (result.code !== 0)
        throw new DockerError(
          'pull-failed',
          `Cannot pull "${reference}": ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
          { details: { reference } },
        );
    },
    containers: async (labels) => {
      const filters = Object.entries(labels).flatMap(([k, v]) => ['--filter', `label=${k}=${v}`]);
      let inspected: ExecResult | undefined;
      // A container removed between listing and inspecting fails the inspect: list again, once.
      for (let attempt = 1; inspected === undefined; attempt += 1) {
        const listed = await run('docker', ['ps', '--all', '--quiet', '--no-trunc', ...filters]);
        if (listed.code !== 0) throw fail('list containers', listed.stderr, listed.code);
        const ids = listed.stdout
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== '');
        if (ids.length === 0) return [];
        const result = await run('docker', ['container', 'inspect', ...ids]);
        if (result.code === 0) inspected = result;
        else if (attempt >= 2)
          throw fail(`inspect containers ${ids.map((i) => i.slice(0, 12)).join(' ')}`, result.stderr, result.code);
      }
      const json: unknown = JSON.parse(inspected.stdout.toString('utf8'));
      const parsed = inspectSchema.safeParse(json);
      if (!parsed.success)
        throw new DockerError(
          'docker-failed',
          `Cannot read docker inspect output:\n${describeZodIssues('docker container inspect', json, parsed.error).join('\n')}`,
        );
      return parsed.data.map((c) => {
        const l = c.Config.Labels ?? {};
        return {
          id: c.Id,
          name: c.Name.replace(/^\//, ''),
          project: l['com.docker.compose.project'] ?? '',
          service: l['com.docker.compose.service'] ?? '',
          oneoff: l['com.docker.compose.oneoff'] === 'True',
          image: c.Config.Image,
          status: c.State.Status,
          running: c.State.Running,
          exitCode: c.State.ExitCode,
          health: c.State.Health?.Status ?? undefined,
          startedAt: c.State.StartedAt,
          labels: l,
        };
      });
    },
  };
}
