// Looks for one program of the list exactly as scripts/install-tools.sh does (its probe()), through the Exec port.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Exec } from '../ports/exec.ts';
import type { Probe, Tool } from './tool-list.ts';

export type ProbeResult =
  | { readonly state: 'present' }
  | { readonly state: 'missing' }
  | { readonly state: 'too-old'; readonly found: string };

export interface ProbeContext {
  readonly exec: Exec;
  readonly env: NodeJS.ProcessEnv;
}

const TIMEOUT_MS = 30_000;

async function isFile(path: string, mode: number): Promise<boolean> {
  try {
    return (await stat(path)).isFile() && (await access(path, mode).then(() => true));
  } catch {
    return false;
  }
}

/** `command -v`: the first executable file of that name in PATH (an empty entry is the current folder, as in bash). */
async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (await isFile(join(dir === '' ? '.' : dir, name), constants.X_OK)) return true;
  }
  return false;
}

async function run(context: ProbeContext, command: string, args: readonly string[]) {
  return context.exec(command, args, { env: context.env, timeoutMs: TIMEOUT_MS }).catch(() => undefined);
}

async function probeOne(probe: Probe, context: ProbeContext): Promise<ProbeResult> {
  const present = (yes: boolean): ProbeResult => ({ state: yes ? 'present' : 'missing' });
  switch (probe.kind) {
    case 'on-path':
      return present(await onPath(probe.name, context.env));
    case 'executable':
      return present(await isFile(probe.path, constants.X_OK));
    case 'readable':
      return present(await isFile(probe.path, constants.R_OK));
    case 'static': {
      if (!(await isFile(probe.path, constants.X_OK))) return present(false);
      const ldd = await run(context, 'ldd', [probe.path]);
      return present(
        ldd !== undefined && `${ldd.stdout.toString('utf8')}${ldd.stderr}`.includes('not a dynamic executable'),
      );
    }
    case 'answers':
      return present((await run(context, probe.command, probe.args))?.code === 0);
    case 'version': {
      const result = await run(context, probe.command, probe.args);
      const match = result?.code === 0 ? /(\d+)\.(\d+)/.exec(result.stdout.toString('utf8')) : null;
      if (match === null) return present(false);
      const [major, minor] = [Number(match[1]), Number(match[2])];
      const [wantMajor, wantMinor] = probe.minimum;
      const enough = major > wantMajor || (major === wantMajor && minor >= wantMinor);
      return enough ? present(true) : { state: 'too-old', found: `${major}.${minor}` };
    }
  }
}

/** Tries the alternatives in order; the first that finds the program wins. */
export async function probeTool(tool: Tool, context: ProbeContext): Promise<ProbeResult> {
  let result: ProbeResult = { state: 'missing' };
  for (const probe of tool.probes) {
    const one = await probeOne(probe, context);
    if (one.state === 'present') return one;
    if (one.state === 'too-old') result = one;
  }
  return result;
}
