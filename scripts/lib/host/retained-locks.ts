import { appliedView } from './applied-record.ts';
import { hostPaths } from './host-paths.ts';
import { readEnvFile } from './load-host-config.ts';
import type { TickContext, TickState } from './tick-context.ts';

/** Folder and lock name of a recorded target: the release tag, else the commit. */
export function targetName(
  target: { readonly release?: string | undefined; readonly commit?: string | undefined } | null | undefined,
): string | undefined {
  return target?.release ?? target?.commit;
}

/** The retained lock env of a recorded target, if the host still has it. */
export async function retainedLock(
  ctx: TickContext,
  name: string | undefined,
): Promise<Record<string, string> | undefined> {
  if (name === undefined) return undefined;
  return readEnvFile(ctx.ports.fs, hostPaths.lockEnv(ctx.config.HEPHAESTUS_ROOT, name)).catch(() => undefined);
}

/** The release applied last and the one before it, as applied.json names them (before this tick records anything). */
export function runningAndPrevious(state: TickState): {
  readonly running: string | undefined;
  readonly previous: string | undefined;
} {
  if (state.applied === undefined) return { running: undefined, previous: undefined };
  const view = appliedView(state.applied);
  return { running: targetName(view), previous: targetName(state.applied.record.previous) };
}
