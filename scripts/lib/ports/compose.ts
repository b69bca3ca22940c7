import { exec as realExec } from './exec.ts';
import type { Exec, ExecResult } from './exec.ts';
import { ToolkitError } from '../errors/toolkit-error.ts';

export class ComposeError extends ToolkitError<'compose-failed' | 'compose-missing'> {}

/** One Compose project: a stack's file, its project name and the exact environment it is rendered with. */
export interface ComposeProject {
  readonly project: string;
  readonly file: string;
  /** Interpolation environment (lock env plus the stack's env file); nothing else from the process leaks in but PATH-like basics. */
  readonly env: Readonly<Record<string, string>>;
}

export interface Compose {
  config(p: ComposeProject): Promise<string>;
  /** `run --rm -T <service>`: a one-off container; returns its result without throwing on a non-zero exit. */
  runOnce(p: ComposeProject, service: string, timeoutMs: number): Promise<ExecResult>;
  stop(p: ComposeProject, services: readonly string[], timeoutMs: number): Promise<void>;
  up(p: ComposeProject, services: readonly string[], timeoutMs: number): Promise<void>;
}

// Compose reads DOCKER_* and the user's config; HEPHAESTUS_* and COMPOSE_* from the caller's shell must not change what is rendered.
const PASSED = /^(PATH|HOME|USER|LANG|LC_ALL|TMPDIR|DOCKER_[A-Z_]+|XDG_RUNTIME_DIR)$/;

export function composeEnv(
  env: Readonly<Record<string, string>>,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (PASSED.test(key) && value !== undefined) out[key] = value;
  return { ...out, ...env };
}

/** HEPHAESTUS_COMPOSE if set (split on spaces), else `docker compose` when the plugin answers, else `docker-compose`. */
export async function detectCompose(setting: string | undefined, run: Exec = realExec): Promise<string[]> {
  if (setting !== undefined && setting.trim() !== '') return setting.trim().split(/\s+/);
  const v2 = await run('docker', ['compose', 'version', '--short']).catch(() => undefined);
  if (v2?.code === 0) return ['docker', 'compose'];
  const v1 = await run('docker-compose', ['version', '--short']).catch(() => undefined);
  if (v1?.code === 0) return ['docker-compose'];
  throw new ComposeError(
    'compose-missing',
    'Cannot find Docker Compose: neither "docker compose" nor "docker-compose" answers (set HEPHAESTUS_COMPOSE)',
    { exitCode: 2 },
  );
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ');
}

/** Compose v2 and v1 take the same arguments for everything used here. */
export function composePort(command: readonly string[], run: Exec = realExec): Compose {
  const [program, ...lead] = command;
  if (program === undefined) throw new ComposeError('compose-missing', 'HEPHAESTUS_COMPOSE is empty', { exitCode: 2 });
  const call = async (p: ComposeProject, args: readonly string[], timeoutMs?: number): Promise<ExecResult> =>
    run(program, [...lead, '--project-name', p.project, '--file', p.file, ...args], {
      env: composeEnv(p.env),
      timeoutMs,
    });
  const ok = async (p: ComposeProject, args: readonly string[], timeoutMs?: number): Promise<ExecResult> => {
    const result = await call(p, args, timeoutMs);
    if (result.code !== 0) {
      throw new ComposeError(
        'compose-failed',
        `Cannot ${args[0]} project "${p.project}" (${p.file}): ${command.join(' ')} exited ${result.code}: ${lastLines(result.stderr)}`,
        {
          details: { project: p.project, file: p.file, args, code: result.code },
        },
      );
    }
    return result;
  };
  return {
    config: async (p) => (await ok(p, ['config'], 60_000)).stdout.toString('utf8'),
    runOnce: (p, service, timeoutMs) => call(p, ['run', '--rm', '-T', service], timeoutMs),
    stop: async (p, services, timeoutMs) => {
      if (services.length > 0) await ok(p, ['stop', ...services], timeoutMs);
    },
    up: async (p, services, timeoutMs) => {
      await ok(p, ['up', '--detach', '--no-build', '--remove-orphans', ...services], timeoutMs);
    },
  };
}

/** Detects Compose on first use only: a tick with nothing to do never starts it. */
export function lazyComposePort(setting: string | undefined, run: Exec = realExec): Compose {
  let port: Promise<Compose> | undefined;
  const get = () => (port ??= detectCompose(setting, run).then((command) => composePort(command, run)));
  return {
    config: async (p) => (await get()).config(p),
    runOnce: async (p, service, timeoutMs) => (await get()).runOnce(p, service, timeoutMs),
    stop: async (p, services, timeoutMs) => (await get()).stop(p, services, timeoutMs),
    up: async (p, services, timeoutMs) => (await get()).up(p, services, timeoutMs),
  };
}
