import { z } from 'zod';
import { ENVIRONMENT } from '../channel/channel-schema.ts';

export const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';

const flag = z.enum(['0', '1', 'true', 'false', '']).transform((v) => v === '1' || v === 'true');
const nonEmpty = z.string().min(1, 'must not be empty');

/** The host's settings (spec "Configuration"), after the env file and the process environment are merged. */
export const hostConfigSchema = z
  .object({
    HEPHAESTUS_CHANNEL: z.string().regex(ENVIRONMENT, 'expected a lower-case environment name'),
    // A leading dash would reach git as an option.
    HEPHAESTUS_REPOSITORY: nonEmpty.regex(/^[^-]/, 'must not start with "-"'),
    HEPHAESTUS_ROOT: nonEmpty.default('/var/lib/hephaestus'),
    HEPHAESTUS_ETC: nonEmpty.default('/etc/hephaestus'),
    HEPHAESTUS_STACKS: z.string().default(''),
    HEPHAESTUS_PROMOTE_IDENTITY: nonEmpty.optional(),
    HEPHAESTUS_RELEASE_IDENTITY: nonEmpty.optional(),
    HEPHAESTUS_OIDC_ISSUER: nonEmpty.default(GITHUB_OIDC_ISSUER),
    HEPHAESTUS_TRUSTED_ROOT: nonEmpty.optional(),
    HEPHAESTUS_TRUSTED_KEYS: nonEmpty.optional(),
    HEPHAESTUS_TUF_MIRROR: z.url().optional(),
    HEPHAESTUS_RELEASE_URL: z.url().optional(),
    HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL: flag.default(false),
    HEPHAESTUS_DEPLOY_BRANCH: nonEmpty.default('deploy-state'),
    // Apply settings (issue 5): read here so the env file and the environment merge once.
    HEPHAESTUS_COMPOSE: nonEmpty.optional(),
    HEPHAESTUS_WAIT_TIMEOUT: z.coerce.number().int().positive().max(86_400).default(300),
    HEPHAESTUS_METRICS_FILE: nonEmpty.optional(),
    HEPHAESTUS_MIN_FREE_GIB: z.coerce.number().nonnegative().default(0),
    HEPHAESTUS_PROJECT_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected lower-case letters, digits, - or _').optional(),
  })
  .refine((c) => c.HEPHAESTUS_TRUSTED_KEYS !== undefined || c.HEPHAESTUS_PROMOTE_IDENTITY !== undefined, {
    message: 'set HEPHAESTUS_TRUSTED_KEYS (public keys) or HEPHAESTUS_PROMOTE_IDENTITY (keyless)',
    path: ['HEPHAESTUS_TRUSTED_KEYS'],
  });

export type HostConfig = z.output<typeof hostConfigSchema>;
