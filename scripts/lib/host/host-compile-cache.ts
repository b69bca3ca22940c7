import * as nodeModule from 'node:module';
import { join } from 'node:path';

/** Caches compiled code under the host's state folder (or NODE_COMPILE_CACHE), which survives a systemd PrivateTmp; a failure only loses the speed-up. */
export function enableHostCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (typeof enable !== 'function') return; // Deno
  try {
    enable(env.NODE_COMPILE_CACHE || join(env.HEPHAESTUS_ROOT || '/var/lib/hephaestus', 'cache', 'node-compile-cache'));
  } catch {
    // A read-only state folder: run uncached.
  }
}
