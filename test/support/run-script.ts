import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NODE = join(PROJECT_ROOT, 'node_modules', '.bin', 'node');

export interface ScriptResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one of `scripts/*.ts` as a user would, with the project's Node. */
export function runScript(
  script: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; runtime?: 'node' | 'deno' } = {},
): ScriptResult {
  const file = join(PROJECT_ROOT, 'scripts', script);
  const [cmd, argv] =
    options.runtime === 'deno'
      ? [join(PROJECT_ROOT, 'node_modules', '.bin', 'deno'), ['run', '-A', '--quiet', file, ...args]]
      : [NODE, [file, ...args]];
  const result = spawnSync(cmd, argv, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}
