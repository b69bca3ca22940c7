import { LockError } from '../lock/lock-error.ts';
import { acquireFileLock } from '../ports/file-lock.ts';
import { fetchBoundsFrom, fetchDeployState } from './deploy-state-cache.ts';
import type { DeployStateCheckout } from './deploy-state-cache.ts';
import type { HostConfig } from './host-config.ts';
import { HostError } from './host-error.ts';
import { hostPaths } from './host-paths.ts';

/**
 * Runs `work` holding `<root>/tick.lock`: a command run by hand fetches into the tick's cache, never while a tick runs
 * (exit 75, nothing touched). `action` starts the refusal: `Cannot verify lock`.
 */
export async function whileNoTick<T>(config: HostConfig, action: string, work: () => Promise<T>): Promise<T> {
  const held = await acquireFileLock(hostPaths.tickLock(config.HEPHAESTUS_ROOT));
  if (!held.held)
    throw new HostError(
      'tick-running',
      `${action}: a tick${held.holder === undefined ? '' : ` (pid ${held.holder})`} is running; try again when it ends`,
      { exitCode: 75 },
    );
  try {
    return await work();
  } finally {
    await held.release();
  }
}

/** Fetches deploy-state and the tags, and resolves release `tag` to its commit; `expected`, when given, must be it. */
export async function fetchReleaseTag(
  config: HostConfig,
  tag: string,
  expected: string | undefined,
  action: string,
): Promise<{ readonly checkout: DeployStateCheckout; readonly tagCommit: string }> {
  const checkout = await fetchDeployState(
    config.HEPHAESTUS_ROOT,
    config.HEPHAESTUS_REPOSITORY,
    config.HEPHAESTUS_DEPLOY_BRANCH,
    fetchBoundsFrom(config),
  );
  const tagged = await checkout.git.run(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`]);
  const tagCommit = tagged.stdout.toString('utf8').trim();
  if (tagged.code !== 0)
    throw new LockError('match', `${action}: tag "${tag}" is not in "${config.HEPHAESTUS_REPOSITORY}"`);
  if (expected !== undefined && tagCommit !== expected)
    throw new LockError('match', `${action}: tag "${tag}" is commit ${tagCommit}, not ${expected}`);
  return { checkout, tagCommit };
}
