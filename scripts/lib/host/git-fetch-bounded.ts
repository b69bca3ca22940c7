import { spawn } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gitEnv } from '../ports/git.ts';
import { HostError } from './host-error.ts';

export interface FetchBounds {
  /** The whole fetch (every git process it starts) is killed after this long. */
  readonly timeoutMs: number;
  /** The pack it receives may grow to at most this many bytes. */
  readonly maxBytes: number;
}

const POLL_MS = 200;

/** Bytes of packs being received into `<gitDir>/objects/pack` (index-pack writes `tmp_pack_*` while it reads). */
async function incomingBytes(packDir: string): Promise<number> {
  const names = await readdir(packDir).catch(() => [] as string[]);
  let total = 0;
  for (const name of names.filter((n) => n.startsWith('tmp_pack_') || n.startsWith('tmp_idx_'))) total += (await stat(join(packDir, name)).catch(() => undefined))?.size ?? 0;
  return total;
}

/**
 * `git fetch` into a bare cache with a deadline and a size limit: the objects always arrive as one pack (never loose), the
 * pack's growth is watched, and the fetch's whole process group is killed when either bound is crossed.
 */
export async function gitFetchBounded(gitDir: string, args: readonly string[], bounds: FetchBounds): Promise<{ readonly code: number; readonly stderr: string }> {
  const packDir = join(gitDir, 'objects', 'pack');
  const child = spawn('git', ['-C', gitDir, '-c', 'fetch.unpackLimit=1', 'fetch', ...args], { env: gitEnv(), stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 65_536) stderr += chunk.toString('utf8');
  });
  let stopped: 'timeout' | 'too-large' | undefined;
  let largest = 0;
  const kill = (why: 'timeout' | 'too-large') => {
    stopped ??= why;
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const deadline = setTimeout(() => kill('timeout'), bounds.timeoutMs);
  const watch = setInterval(() => {
    void incomingBytes(packDir).then((bytes) => {
      largest = Math.max(largest, bytes);
      if (bytes > bounds.maxBytes) kill('too-large');
    });
  }, POLL_MS);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', (cause) => reject(new HostError('fetch-failed', `Cannot run git: ${cause.message}`, { cause })));
    child.on('close', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
  }).finally(() => {
    clearTimeout(deadline);
    clearInterval(watch);
  });
  if (stopped !== undefined) {
    // A killed index-pack leaves its temporary pack behind.
    for (const name of await readdir(packDir).catch(() => [] as string[])) if (name.startsWith('tmp_')) await rm(join(packDir, name), { force: true });
    if (stopped === 'timeout') throw new HostError('fetch-timeout', `Cannot fetch: no complete answer within ${bounds.timeoutMs / 1000} s (HEPHAESTUS_FETCH_TIMEOUT)`, { details: { timeoutMs: bounds.timeoutMs } });
    throw new HostError('fetch-too-large', `Cannot fetch: the server sent more than ${Math.round(bounds.maxBytes / 1048576)} MiB (HEPHAESTUS_FETCH_MAX_MIB); at least ${largest} bytes arrived`, { details: { maxBytes: bounds.maxBytes, received: largest } });
  }
  return { code, stderr };
}
