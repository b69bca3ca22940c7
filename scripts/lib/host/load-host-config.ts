import type { Fs } from '../ports/fs.ts';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { readFileBounded } from '../signing/read-bounded.ts';
import { HostError } from './host-error.ts';
import { hostConfigSchema } from './host-config.ts';
import type { HostConfig } from './host-config.ts';

export const CONFIG_FILE = 'reconcile.env';

function configError(message: string, file: string): HostError {
  return new HostError('config', message, { exitCode: 2, details: { file } });
}

/** `KEY=value` lines (systemd EnvironmentFile subset): comments, blank lines, optional matching quotes; nothing is expanded. */
export function parseEnvFile(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match === null)
      throw configError(
        `Cannot read "${file}": line ${index + 1}: expected KEY=value (value ${JSON.stringify(line.slice(0, 60))})`,
        file,
      );
    let value = match[2] ?? '';
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]))
      value = value.slice(1, -1);
    out[match[1] ?? ''] = value;
  });
  return out;
}

/** Reads `<HEPHAESTUS_ETC>/reconcile.env` if present (0600, root-owned when running as root), then lets the process environment override it. */
export async function loadHostConfig(
  env: NodeJS.ProcessEnv = process.env,
): Promise<HostConfig & { readonly configFile: string | undefined }> {
  const etc = env.HEPHAESTUS_ETC ?? '/etc/hephaestus';
  const file = join(etc, CONFIG_FILE);
  let fromFile: Record<string, string> = {};
  let configFile: string | undefined;
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw configError(`Cannot read "${file}": ${error.message}`, file);
  });
  if (info !== undefined) {
    if (!info.isFile())
      throw configError(
        `Cannot use "${file}": it is ${info.isDirectory() ? 'a directory' : 'not a regular file'}; it must be a file of KEY=value lines (or absent)`,
        file,
      );
    if ((info.mode & 0o077) !== 0)
      throw configError(`Cannot use "${file}": mode ${(info.mode & 0o777).toString(8)} must be 600`, file);
    if (process.getuid?.() === 0 && info.uid !== 0)
      throw configError(`Cannot use "${file}": owned by uid ${info.uid}, must be root`, file);
    fromFile = parseEnvFile((await readFileBounded(file)).toString('utf8'), file);
    configFile = file;
  }
  const merged: Record<string, string> = { ...fromFile };
  for (const [key, value] of Object.entries(env))
    if (key.startsWith('HEPHAESTUS_') && value !== undefined) merged[key] = value;
  const known = new Set(Object.keys(hostConfigSchema.shape));
  // An empty value (`KEY=` in an env file, or an empty variable) means unset, as systemd reads it.
  const input = Object.fromEntries(Object.entries(merged).filter(([key, value]) => known.has(key) && value !== ''));
  const parsed = hostConfigSchema.safeParse(input);
  if (!parsed.success) {
    const source = configFile === undefined ? 'environment' : `${file} + environment`;
    throw configError(
      `Cannot load host configuration:\n${describeZodIssues(source, input, parsed.error).join('\n')}`,
      file,
    );
  }
  // A chart host waits for Helm, whose Pods wait up to 10 minutes for the schema: its default timeout is 1200 s.
  const chartWait =
    input.HEPHAESTUS_WAIT_TIMEOUT === undefined && parsed.data.HEPHAESTUS_STACKS.trim() === 'chart'
      ? { HEPHAESTUS_WAIT_TIMEOUT: 1200 }
      : {};
  return { ...parsed.data, ...chartWait, configFile };
}

/** Reads a `KEY=value` file (lock env or stack env); undefined when missing. */
export async function readEnvFile(fs: Fs, path: string): Promise<Record<string, string> | undefined> {
  const bytes = await fs.read(path);
  return bytes === undefined ? undefined : parseEnvFile(bytes.toString('utf8'), path);
}
