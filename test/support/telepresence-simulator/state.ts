// The Telepresence simulator's daemon state, a JSON file in its home folder, changed under a lock, written atomically.
import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const replacedSchema = z.strictObject({
  /** The attachment's name: the workload, or `<workload>/<container>` with --container. */
  name: z.string(),
  port: z.string().optional(),
  address: z.string(),
  container: z.string().optional(),
  mechanism: z.enum(['replace', 'intercept']),
});
export const stateSchema = z.strictObject({
  connected: z
    .strictObject({
      namespace: z.string(),
      /** `connect --docker`: the daemon's container and the loopback port of its tunnel (docker-mode.ts). */
      docker: z.strictObject({ container: z.string(), tunnel: z.number().int() }).optional(),
    })
    .nullable(),
  /** `<namespace>/<workload>` → the active replacement or intercept. */
  replaced: z.record(z.string(), replacedSchema),
  /** Traffic agents injected into workloads, per namespace: they outlive `leave` and `quit`. */
  agents: z.record(z.string(), z.array(z.string())),
  /** Replacements an uninstall ended while their runtime still expected traffic. */
  disrupted: z.array(z.string()),
});
export type SimState = z.infer<typeof stateSchema>;

export const serviceSchema = z.strictObject({
  namespace: z.string(),
  workload: z.string(),
  /** The workload's container port (`--port local:remote` names it). */
  port: z.number().int(),
  /** The loopback port standing for the Service inside the cluster. */
  listen: z.number().int(),
  /** Where the Service's traffic goes while nothing replaces the workload (the "pod in the cluster"). */
  backend: z.number().int().optional(),
});
export type SimService = z.infer<typeof serviceSchema>;

export const EMPTY: SimState = { connected: null, replaced: {}, agents: {}, disrupted: [] };

export function homeOf(): string {
  const home = process.env['TELEPRESENCE_SIMULATOR_HOME'];
  if (home === undefined || home === '')
    throw new Error('telepresence simulator: TELEPRESENCE_SIMULATOR_HOME is not set');
  return home;
}

export function readState(home: string): SimState {
  try {
    return stateSchema.parse(JSON.parse(readFileSync(join(home, 'state.json'), 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return structuredClone(EMPTY);
    throw error;
  }
}

export function readServices(home: string): SimService[] {
  try {
    return z.array(serviceSchema).parse(JSON.parse(readFileSync(join(home, 'services.json'), 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Runs `change` on the state under a lock (a directory), like the real daemon serialising its RPCs. */
export function withState<T>(home: string, change: (state: SimState) => T): T {
  const lock = join(home, 'state.lock');
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('telepresence simulator: state lock held for 10 s');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    const state = readState(home);
    const result = change(state);
    const temp = join(home, `.state.${process.pid}.tmp`);
    writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(temp, join(home, 'state.json'));
    return result;
  } finally {
    rmdirSync(lock);
  }
}
