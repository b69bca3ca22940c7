import { z } from 'zod';
import { resolveProfilePath } from './deploy-profile.ts';

export const runnerProfileSchema = z.strictObject({
  /** The Linux runner's SSH host name or address. */
  host: z.string().regex(/^[A-Za-z0-9.:-]+$/, 'must be a host name or address'),
  port: z.number().int().min(1).max(65535).default(22),
  user: z.string().regex(/^[a-z_][a-z0-9_-]*$/, 'must be a user name'),
  /** The private key ssh offers (relative to the profile, or ~/…); default: ssh's own choice. */
  identity: z.string().min(1).optional(),
  /** The known_hosts file holding the runner's host key; default: ssh's (~/.ssh/known_hosts). Host keys are always checked. */
  knownHosts: z.string().min(1).optional(),
  /** The runner's own folder (checkout, targets, state); REMOTE_ROOT overrides it. Relative: to the runner user's home. */
  root: z
    .string()
    .regex(/^[^\0\n]+$/, 'must be a path')
    .default('.pharos-runner'),
  /** Where this toolkit is installed on the runner (its scripts/devbox.ts and node_modules). */
  toolkit: z.string().regex(/^\/[^\0\n]*$/, 'must be an absolute path on the runner'),
  /** Force the runner even where the Linux tools are present. */
  always: z.boolean().default(false),
  /** How many times a dropped connection is retried (the command resumes from its journal). */
  retries: z.number().int().min(0).max(10).default(3),
});

export type RunnerProfile = z.infer<typeof runnerProfileSchema>;

export function resolveRunnerPaths(runner: RunnerProfile, base: string): RunnerProfile {
  return {
    ...runner,
    ...(runner.identity === undefined ? {} : { identity: resolveProfilePath(runner.identity, base) }),
    ...(runner.knownHosts === undefined ? {} : { knownHosts: resolveProfilePath(runner.knownHosts, base) }),
  };
}
