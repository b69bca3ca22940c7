import { z } from 'zod';
import { lazySchema } from '../errors/lazy-schema.ts';
import { ENVIRONMENT } from '../channel/channel-schema.ts';

export const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';

/** A Compose stack name as HEPHAESTUS_STACKS lists it (also a project name and a file name part): no path, no option. */
export const STACK_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** Helm's release name rule (helm pkg/chartutil ValidateReleaseName) and a namespace's DNS-1123 label. */
export const HELM_RELEASE_NAME = /^(?=.{1,53}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The host's settings (spec "Configuration"), after the env file and the process environment are merged. */
export const hostConfigSchema = lazySchema(() => {
  const pattern = z
    .string()
    .min(1, 'must not be empty')
    .refine((p) => {
      try {
        new RegExp(p, 'u');
        return true;
      } catch {
        return false;
      }
    }, 'is not a valid regular expression');
  const flag = z.enum(['0', '1', 'true', 'false', '']).transform((v) => v === '1' || v === 'true');
  const nonEmpty = z.string().min(1, 'must not be empty');
  return z
    .object({
      HEPHAESTUS_CHANNEL: z.string().regex(ENVIRONMENT, 'expected a lower-case environment name'),
      // A leading dash would reach git as an option.
      HEPHAESTUS_REPOSITORY: nonEmpty.regex(/^[^-]/, 'must not start with "-"'),
      HEPHAESTUS_ROOT: nonEmpty.default('/var/lib/hephaestus'),
      HEPHAESTUS_ETC: nonEmpty.default('/etc/hephaestus'),
      HEPHAESTUS_STACKS: z
        .string()
        .default('')
        .refine(
          (v) => v.split(/[\s,]+/).every((s) => s === '' || STACK_NAME.test(s)),
          'expected stack names (lower-case letters, digits, - or _) separated by spaces or commas',
        ),
      // Exact SANs; the *_PATTERN variants are anchored regular expressions for sites that want one (cosign's --certificate-identity-regexp).
      HEPHAESTUS_PROMOTE_IDENTITY: nonEmpty.optional(),
      HEPHAESTUS_RELEASE_IDENTITY: nonEmpty.optional(),
      HEPHAESTUS_PROMOTE_IDENTITY_PATTERN: pattern.optional(),
      HEPHAESTUS_RELEASE_IDENTITY_PATTERN: pattern.optional(),
      // One key list per role; HEPHAESTUS_TRUSTED_KEYS (the spec's single list) trusts its keys for both, with a warning.
      HEPHAESTUS_PROMOTE_KEYS: nonEmpty.optional(),
      HEPHAESTUS_RELEASE_KEYS: nonEmpty.optional(),
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
      HEPHAESTUS_MIN_FREE_GIB: z.coerce.number().nonnegative().default(10),
      // Every git command that talks to the server stops after this many seconds; a fetch may download at most this much.
      HEPHAESTUS_FETCH_TIMEOUT: z.coerce.number().int().positive().max(86_400).default(600),
      HEPHAESTUS_FETCH_MAX_MIB: z.coerce.number().int().positive().default(2048),
      // Tooling adoption: where the unit copies live, and the programs that install and reload.
      HEPHAESTUS_SYSTEMD_DIR: nonEmpty.default('/etc/systemd/system'),
      HEPHAESTUS_SYSTEMCTL: nonEmpty.default('systemctl'),
      HEPHAESTUS_NPM: nonEmpty.default('npm'),
      // Chart hosts (HEPHAESTUS_STACKS=chart): the seed's "Settings for the chart".
      HEPHAESTUS_HELM: nonEmpty.regex(/^[^-]/, 'must not start with "-"').default('helm'),
      HEPHAESTUS_CHART_RELEASE: z
        .string()
        .regex(HELM_RELEASE_NAME, 'expected a Helm release name (lower-case letters, digits, - and ., at most 53)')
        .default('hephaestus'),
      HEPHAESTUS_CHART_NAMESPACE: z
        .string()
        .regex(DNS_LABEL, 'expected a Kubernetes namespace (lower-case letters, digits and -, at most 63)')
        .default('hephaestus'),
      HEPHAESTUS_CHART_PROFILE: z
        .string()
        .default('small')
        .refine(
          (v) =>
            v.split(/[\s,]+/).some((p) => p !== '') && v.split(/[\s,]+/).every((p) => p === '' || PROFILE_NAME.test(p)),
          'expected profile names (letters, digits, -, _ or .) separated by spaces or commas',
        ),
      KUBECONFIG: nonEmpty.optional(),
      HEPHAESTUS_PROJECT_PREFIX: z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected lower-case letters, digits, - or _')
        .optional(),
    })
    .refine(
      (c) =>
        c.HEPHAESTUS_PROMOTE_KEYS !== undefined ||
        c.HEPHAESTUS_TRUSTED_KEYS !== undefined ||
        c.HEPHAESTUS_PROMOTE_IDENTITY !== undefined ||
        c.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN !== undefined,
      {
        message:
          'set HEPHAESTUS_PROMOTE_KEYS (public keys) or HEPHAESTUS_PROMOTE_IDENTITY (keyless) to say who may sign channels',
        path: ['HEPHAESTUS_PROMOTE_KEYS'],
      },
    )
    .refine((c) => !c.HEPHAESTUS_STACKS.split(/[\s,]+/).includes('chart') || c.HEPHAESTUS_STACKS.trim() === 'chart', {
      message: 'chart takes no other stack: set HEPHAESTUS_STACKS=chart, or only Compose stacks',
      path: ['HEPHAESTUS_STACKS'],
    })
    .refine((c) => c.HEPHAESTUS_PROMOTE_IDENTITY === undefined || c.HEPHAESTUS_PROMOTE_IDENTITY_PATTERN === undefined, {
      message: 'set HEPHAESTUS_PROMOTE_IDENTITY or HEPHAESTUS_PROMOTE_IDENTITY_PATTERN, not both',
      path: ['HEPHAESTUS_PROMOTE_IDENTITY_PATTERN'],
    })
    .refine((c) => c.HEPHAESTUS_RELEASE_IDENTITY === undefined || c.HEPHAESTUS_RELEASE_IDENTITY_PATTERN === undefined, {
      message: 'set HEPHAESTUS_RELEASE_IDENTITY or HEPHAESTUS_RELEASE_IDENTITY_PATTERN, not both',
      path: ['HEPHAESTUS_RELEASE_IDENTITY_PATTERN'],
    });
});

export type HostConfig = z.output<typeof hostConfigSchema>;
