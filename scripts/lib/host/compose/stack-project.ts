import type { ComposeProject } from '../../ports/compose.ts';
import type { Fs } from '../../ports/fs.ts';
import { readEnvFile } from '../load-host-config.ts';
import { hostPaths } from '../host-paths.ts';

/** The stack's Compose project: project name = stack (optionally prefixed), env = `/etc/hephaestus/<stack>.env` overridden by the lock. */
export async function stackProject(
  fs: Fs,
  options: {
    etc: string;
    prefix: string | undefined;
    worktree: string;
    stack: string;
    lockEnv: Readonly<Record<string, string>>;
  },
): Promise<ComposeProject> {
  const stackEnv = (await readEnvFile(fs, hostPaths.stackEnv(options.etc, options.stack))) ?? {};
  // The lock decides every image: a stack env file cannot override a pinned variable.
  const own = Object.fromEntries(Object.entries(stackEnv).filter(([key]) => !key.startsWith('HEPHAESTUS_')));
  return {
    project: `${options.prefix ?? ''}${options.stack}`,
    file: hostPaths.stackFile(options.worktree, options.stack),
    env: { ...own, ...options.lockEnv },
  };
}
