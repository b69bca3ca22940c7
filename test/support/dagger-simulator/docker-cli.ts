// The real Docker CLI as the simulator's engine: every call fails with the command's own stderr.
import { exec } from '../../../scripts/lib/ports/exec.ts';
import type { ExecOptions, ExecResult } from '../../../scripts/lib/ports/exec.ts';

/** The classic builder: it needs nothing from the internet and uses the locally imported base image. */
const ENGINE_ENV = { ...process.env, DOCKER_BUILDKIT: '0' };

export function docker(args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
  return exec('docker', args, { ...options, env: { ...ENGINE_ENV, ...options.env } });
}

export async function dockerOk(args: readonly string[], options: ExecOptions = {}): Promise<string> {
  const result = await docker(args, options);
  if (result.code !== 0)
    throw new Error(`docker ${args[0] ?? ''} failed: ${result.stderr.trim() || result.stdout.toString('utf8').trim()}`);
  return result.stdout.toString('utf8').trim();
}

export interface ImageConfig {
  readonly Entrypoint: string[] | null;
  readonly Cmd: string[] | null;
  readonly Labels: Record<string, string> | null;
  readonly Env: string[] | null;
}

export async function imageConfig(image: string): Promise<ImageConfig> {
  return JSON.parse(await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image])) as ImageConfig;
}
