import { join } from 'node:path';

/** Where a host keeps each thing under HEPHAESTUS_ROOT and HEPHAESTUS_ETC (spec "The host's files"). */
export const hostPaths = {
  cache: (root: string) => join(root, 'cache', 'deploy-state.git'),
  worktree: (root: string, target: string) => join(root, 'releases', target),
  lockEnv: (root: string, target: string) => join(root, 'release-locks', `${target}.env`),
  stackFile: (worktree: string, stack: string) => join(worktree, 'docker', `compose.${stack}.yaml`),
  stackEnv: (etc: string, stack: string) => join(etc, `${stack}.env`),
  metrics: (root: string, configured: string | undefined) => configured ?? join(root, 'metrics', 'hephaestus.prom'),
};

/** HEPHAESTUS_STACKS in order (`core app`). */
export function stacksOf(setting: string): string[] {
  return setting.split(/[\s,]+/).filter((s) => s !== '');
}
