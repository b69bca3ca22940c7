import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { TargetError } from './target-error.ts';
import { durationSchema } from './duration.ts';
import { deployProfileSchema, resolveDeployPaths } from './deploy-profile.ts';
import { resolveRunnerPaths, runnerProfileSchema } from './runner-profile.ts';

const dnsName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a Kubernetes name (lowercase letters, digits, "-")');
const quantity = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/, 'must be a Kubernetes quantity such as "500m" or "2Gi"');
const resources = z.strictObject({ cpu: quantity, memory: quantity });

export const TARGET_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The branch the BuildKit Jobs' commit is reachable from: BuildKit 0.16 fetches a commit context with `git fetch --tags origin`. */
export const BUILD_BRANCH = 'pharos-build';

export const targetProfileSchema = z.strictObject({
  schema: z.literal(1),
  kube: z.strictObject({
    /** The kubeconfig context; the default context when absent. */
    context: z.string().min(1).optional(),
    /** A kubeconfig file (relative to the profile), else $KUBECONFIG or ~/.kube/config. */
    kubeconfig: z.string().min(1).optional(),
  }),
  namespaces: z
    .strictObject({ argocd: dnsName.default('argocd'), build: dnsName.default('pharos-build') })
    .default({ argocd: 'argocd', build: 'pharos-build' }),
  ownership: dnsName.default('pharos-platform-ownership'),
  git: z.strictObject({
    /** Where this workstation pushes the delivered commit (a URL or a path). */
    push: z.string().min(1),
    /** The same repository as BuildKit and Argo CD fetch it inside the cluster. */
    cluster: z.string().min(1),
    /** The branch the delivery moves to the delivered commit. */
    branch: z
      .string()
      .regex(/^[A-Za-z0-9._/-]+$/, 'must be a branch name')
      .refine(
        (b) => b !== BUILD_BRANCH && !b.startsWith(`${BUILD_BRANCH}/`),
        `must not be "${BUILD_BRANCH}": the builds fetch the commit from that branch before the delivery branch moves`,
      )
      .default('devbox'),
  }),
  registry: z.strictObject({
    /** Host (and port) of the in-cluster registry, as image references name it. */
    host: z
      .string()
      .regex(/^[a-z0-9.-]+(:[0-9]+)?$/, 'must be a host such as "registry.pharos-build.svc.cluster.local:5000"'),
  }),
  /** The root app-of-apps the delivery gives its inputs (commit and image map) and syncs. */
  root: z.strictObject({ application: dnsName }),
  /** The AppProject of the platform's Applications (where a takeover lease puts its deny window). */
  project: dnsName,
  build: z
    .strictObject({
      /** The Job manifest the builds are made from, relative to the profile. */
      jobTemplate: z.string().min(1).default('../gitops/manifests/pharos-build/buildkit-job.yaml'),
      parallel: z.number().int().min(1).max(16).default(1),
      requests: resources.optional(),
      limits: resources.optional(),
      timeout: durationSchema.default(1_800_000),
    })
    .default({ jobTemplate: '../gitops/manifests/pharos-build/buildkit-job.yaml', parallel: 1, timeout: 1_800_000 }),
  delivery: z
    .strictObject({ ttl: durationSchema.default(3_600_000), syncTimeout: durationSchema.default(600_000) })
    .default({ ttl: 3_600_000, syncTimeout: 600_000 }),
  /** What `make deploy` needs beyond a delivery: the Ansible inventory, layers, AAI clients, provider tokens. */
  deploy: deployProfileSchema.optional(),
  /** The Linux runner a workstation without the Linux tools (macOS) delivers through. */
  runner: runnerProfileSchema.optional(),
});

export type TargetProfileFile = z.infer<typeof targetProfileSchema>;

export interface TargetProfile extends TargetProfileFile {
  readonly name: string;
  readonly file: string;
  /** Absolute path of the Job template. */
  readonly jobTemplatePath: string;
  /** Absolute kubeconfig path when the profile names one. */
  readonly kubeconfigPath: string | undefined;
}

/** `targets/<name>.yaml`, validated; every bad field is named with its path and value. */
export async function loadTargetProfile(dir: string, name: string): Promise<TargetProfile> {
  if (!TARGET_NAME.test(name))
    throw new TargetError('unknown-target', `Cannot load target "${name}": target names match ${TARGET_NAME.source}`);
  const file = resolve(join(dir, `${name}.yaml`));
  const text = await readFile(file, 'utf8').catch((cause: NodeJS.ErrnoException) => {
    throw new TargetError(
      'unknown-target',
      `Cannot load target "${name}": ${cause.code === 'ENOENT' ? `no profile "${file}"` : cause.message}`,
      { cause, details: { file } },
    );
  });
  return parseTargetProfile(text, file, name);
}

export function parseTargetProfile(text: string, file: string, name: string): TargetProfile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (cause) {
    throw new TargetError('bad-profile', `Cannot parse target profile "${file}": ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  const parsed = targetProfileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = describeZodIssues(file, raw, parsed.error);
    throw new TargetError('bad-profile', `Invalid target profile:\n${lines.join('\n')}`, {
      details: { file, issues: lines },
    });
  }
  const base = dirname(file);
  const profile = parsed.data;
  return {
    ...profile,
    name,
    file,
    jobTemplatePath: resolve(base, profile.build.jobTemplate),
    kubeconfigPath: profile.kube.kubeconfig === undefined ? undefined : resolve(base, profile.kube.kubeconfig),
    deploy: profile.deploy === undefined ? undefined : resolveDeployPaths(profile.deploy, base),
    runner: profile.runner === undefined ? undefined : resolveRunnerPaths(profile.runner, base),
    git: { ...profile.git, push: isUrl(profile.git.push) ? profile.git.push : resolve(base, profile.git.push) },
  };
}

function isUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//.test(text) || /^[^/]+@[^:]+:/.test(text);
}
