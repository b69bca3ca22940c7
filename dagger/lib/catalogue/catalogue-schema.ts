import { z } from 'zod';
import { normaliseRepoPath, repoPathProblem } from './repo-path.ts';

const repoPath = z
  .string()
  .transform(normaliseRepoPath)
  .superRefine((value, ctx) => {
    const problem = repoPathProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `unsafe path: ${problem}` });
  });

export const IMAGE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const ARG_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const DEFAULT_EXCLUDE: readonly string[] = [
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/*.test.*',
  '**/*.spec.*',
  '**/docs/**',
  '**/*.md',
];

const noControl = (what: string) =>
  z.string().refine((value) => !/[\t\n\r\0]/.test(value), `${what} must not contain tab, newline or NUL`);

const platform = z.string().regex(/^[a-z0-9]+\/[a-z0-9]+(\/[a-z0-9]+)?$/, 'must look like "linux/amd64"');

const takeover = z.strictObject({
  runtime: z.enum(['native', 'docker']),
  command: z.array(noControl('a command word')).min(1).optional(),
  workload: z.string().min(1).optional(),
  container: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
});

export const imageEntrySchema = z.strictObject({
  image: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._\-/:]*[a-z0-9]$/, 'must be an image repository such as "pharos/api"')
    .refine(
      (v) => !v.includes('@') && !(v.split('/').pop() ?? '').includes(':'),
      'must name a repository, not a tag or digest',
    ),
  // Required unless `deployed: false`; parse-catalogue says so in one sentence.
  application: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]{0,251}[a-z0-9])?$/, 'must be an Argo CD Application name')
    .optional(),
  deployed: z.literal(false, 'must be false (an image no Argo CD Application deploys), or absent').optional(),
  context: repoPath,
  dockerfile: repoPath.refine((v) => v !== '.', 'must name a file'),
  target: noControl('target').pipe(z.string().min(1)).optional(),
  args: z
    .record(z.string().regex(ARG_KEY, `arg names must match ${ARG_KEY.source}`), noControl('an arg value'))
    .optional(),
  platform: platform.optional(),
  inputs: z.array(repoPath).min(1, 'must list at least one input'),
  exclude: z.array(noControl('a glob').pipe(z.string().min(1))).optional(),
  takeover: takeover.optional(),
});

export const catalogueFileSchema = z.strictObject({
  platform,
  exclude: z.array(noControl('a glob').pipe(z.string().min(1))).optional(),
  owned: z
    .array(
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9._\-/:]*$/, 'must be an image name prefix ending in "/" or one image repository'),
    )
    .optional(),
  images: z.record(z.string().regex(IMAGE_NAME, `catalogue names must match ${IMAGE_NAME.source}`), imageEntrySchema),
});

export type CatalogueFile = z.infer<typeof catalogueFileSchema>;
export type TakeoverSpec = z.infer<typeof takeover>;
