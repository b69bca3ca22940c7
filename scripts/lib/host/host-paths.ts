import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where a host keeps each thing under HEPHAESTUS_ROOT and HEPHAESTUS_ETC (spec "The host's files"). */
export const hostPaths = {
  /**
   * The repository a host fetches into and makes release worktrees of: the installed reconciler clone `checkout/` (so the
   * documented `git -C /var/lib/hephaestus/checkout worktree lock` works), else a bare cache for hosts without one.
   */
  cache: (root: string) =>
    existsSync(join(root, 'checkout', '.git')) ? join(root, 'checkout') : join(root, 'cache', 'deploy-state.git'),
  worktree: (root: string, target: string) => join(root, 'releases', target),
  lockEnv: (root: string, target: string) => join(root, 'release-locks', `${target}.env`),
  stackFile: (worktree: string, stack: string) => join(worktree, 'docker', `compose.${stack}.yaml`),
  stackEnv: (etc: string, stack: string) => join(etc, `${stack}.env`),
  /** Held (flock) by every tick, --plan and prepare-release-lock while they run. */
  tickLock: (root: string) => join(root, 'tick.lock'),
  metrics: (root: string, configured: string | undefined) => configured ?? join(root, 'metrics', 'hephaestus.prom'),
};

/** HEPHAESTUS_STACKS in order (`core app`). */
export function stacksOf(setting: string): string[] {
  return setting.split(/[\s,]+/).filter((s) => s !== '');
}
