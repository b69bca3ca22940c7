import { posix } from 'node:path';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { readFile } from 'node:fs/promises';
import type { ImageEntry } from '../catalogue/catalogue.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { BASE_REGISTRY_ARG } from '../registry-seed/catalogue-bases.ts';
import { DeliveryError } from './delivery-error.ts';
import type { TargetProfile } from '../target/target-profile.ts';

export const BUILD_CONTAINER = 'buildkit';
export const LABEL_IMAGE = 'pharos.dev/image';
export const LABEL_FINGERPRINT = 'pharos.dev/fingerprint';
export const ANNOTATION_COMMIT = 'pharos.dev/commit';

const resourceList = z.record(z.string(), z.union([z.string(), z.number()]));
const containerSchema = z.looseObject({
  name: z.string(),
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  resources: z.looseObject({ requests: resourceList.optional(), limits: resourceList.optional() }).optional(),
});

/** The fields of the Job template the delivery reads or fills; everything else passes through unchanged. */
export const jobTemplateSchema = z.looseObject({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('Job'),
  metadata: z
    .looseObject({
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .default({}),
  spec: z.looseObject({
    backoffLimit: z.literal(0, 'must be 0: a failed build is reported, not retried'),
    template: z.looseObject({
      metadata: z.looseObject({ labels: z.record(z.string(), z.string()).optional() }).optional(),
      spec: z.looseObject({
        restartPolicy: z.literal('Never'),
        containers: z
          .array(containerSchema)
          .refine(
            (cs) => cs.some((c) => c.name === BUILD_CONTAINER),
            `must hold a container named "${BUILD_CONTAINER}"`,
          ),
      }),
    }),
  }),
});
export type JobTemplate = z.infer<typeof jobTemplateSchema>;

export async function loadJobTemplate(file: string): Promise<JobTemplate> {
  const text = await readFile(file, 'utf8').catch((cause: Error) => {
    throw new DeliveryError('bad-job-template', `Cannot read the BuildKit Job template "${file}": ${cause.message}`, {
      cause,
    });
  });
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (cause) {
    throw new DeliveryError(
      'bad-job-template',
      `Cannot parse the BuildKit Job template "${file}": ${(cause as Error).message}`,
      { cause },
    );
  }
  const parsed = jobTemplateSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = describeZodIssues(file, raw, parsed.error);
    throw new DeliveryError('bad-job-template', `Invalid BuildKit Job template:\n${lines.join('\n')}`, {
      details: { file, issues: lines },
    });
  }
  return parsed.data;
}

export interface BuildRequest {
  readonly image: ImageEntry;
  readonly fingerprint: string;
  readonly commit: string;
  /** The catalogue folder's path inside the Git repository (`` or `sub/dir/`). */
  readonly prefix: string;
}

/** Deterministic per fingerprint, so a rerun after a crash finds the Job it already started. */
export function buildJobName(name: string, fingerprint: string): string {
  return `build-${name.slice(0, 36)}-${fingerprint.slice(0, 16)}`.replace(/-+$/, '');
}

/** `<registry>/<catalogue name>`: the repository the build pushes to. */
export function imageRepository(profile: TargetProfile, name: string): string {
  return `${profile.registry.host}/${name}`;
}

/** The `buildctl-daemonless.sh build` arguments: the context is the delivered commit in the in-cluster Git server. */
export function buildctlArgs(profile: TargetProfile, request: BuildRequest): string[] {
  const { image, commit, prefix } = request;
  const subdir = posix.join(prefix, image.context).replace(/^\.$/, '').replace(/\/$/, '');
  const filename = posix.relative(image.context === '.' ? '' : image.context, image.dockerfile);
  if (filename.startsWith('../')) {
    throw new DeliveryError(
      'plan-failed',
      `Cannot build image "${image.name}": Dockerfile "${image.dockerfile}" is outside its context "${image.context}"`,
      { details: { image: image.name } },
    );
  }
  const args = [
    'build',
    '--frontend',
    'dockerfile.v0',
    '--opt',
    `context=${profile.git.cluster}#${commit}${subdir === '' ? '' : `:${subdir}`}`,
    '--opt',
    `filename=${filename}`,
  ];
  if (image.target !== undefined) args.push('--opt', `target=${image.target}`);
  for (const [key, value] of image.args) args.push('--opt', `build-arg:${key}=${value}`);
  // Bases come from the in-cluster registry (seeded by `make deploy`) and no step reaches a network.
  args.push('--opt', `build-arg:${BASE_REGISTRY_ARG}=${profile.registry.host}`, '--opt', 'force-network-mode=none');
  args.push('--opt', `platform=${image.platform}`);
  args.push('--output', `type=image,name=${imageRepository(profile, image.name)},push=true,registry.insecure=true`);
  // The layer cache lives in the registry, one ref per image: parallel Jobs on any node share it without a volume.
  const cache = `type=registry,ref=${imageRepository(profile, image.name)}:buildcache,registry.insecure=true`;
  args.push('--export-cache', `${cache},mode=max`, '--import-cache', cache);
  args.push('--metadata-file', '/dev/termination-log', '--progress', 'plain');
  return args;
}

/** The template with its name, labels, arguments and (when the profile sets them) requests and limits filled in. */
export function renderBuildJob(
  template: JobTemplate,
  profile: TargetProfile,
  request: BuildRequest,
): Record<string, unknown> {
  const job = structuredClone(template) as JobTemplate;
  const name = buildJobName(request.image.name, request.fingerprint);
  const labels = {
    ...(job.metadata.labels ?? {}),
    [LABEL_IMAGE]: request.image.name,
    [LABEL_FINGERPRINT]: request.fingerprint.slice(0, 63),
  };
  job.metadata = {
    ...job.metadata,
    name,
    namespace: profile.namespaces.build,
    labels,
    annotations: { ...(job.metadata.annotations ?? {}), [ANNOTATION_COMMIT]: request.commit },
  };
  const podMeta = job.spec.template.metadata ?? {};
  job.spec.template.metadata = { ...podMeta, labels: { ...(podMeta.labels ?? {}), [LABEL_IMAGE]: request.image.name } };
  job.spec.template.spec.containers = job.spec.template.spec.containers.map((container) => {
    if (container.name !== BUILD_CONTAINER) return container;
    const resources = { ...(container.resources ?? {}) };
    if (profile.build.requests) resources.requests = { ...profile.build.requests };
    if (profile.build.limits) resources.limits = { ...profile.build.limits };
    return { ...container, command: ['buildctl-daemonless.sh'], args: buildctlArgs(profile, request), resources };
  });
  return job as Record<string, unknown>;
}

const metadataSchema = z.looseObject({
  'containerimage.digest': z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:<64 hex>"'),
});

/** The pushed digest from buildctl's `--metadata-file`, which the build container leaves as its termination message. */
export function digestFromTerminationMessage(message: string | undefined, job: string): string {
  let raw: unknown;
  try {
    raw = JSON.parse(message ?? '');
  } catch {
    raw = undefined;
  }
  const parsed = metadataSchema.safeParse(raw);
  if (!parsed.success) {
    throw new DeliveryError(
      'build-failed',
      `Cannot read the pushed digest of Job "${job}": its termination message is not buildctl metadata with "containerimage.digest" (value ${JSON.stringify((message ?? '').slice(0, 80))})`,
      { details: { job } },
    );
  }
  return parsed.data['containerimage.digest'];
}
