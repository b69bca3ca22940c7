// Port: runs a taken-over image on the workstation. This version ships the native runtime: the catalogue's command.
import { processAlive } from '../ports/pid-lock.ts';
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { LeaseError } from '../lease/lease-error.ts';

export interface RuntimeRequest {
  readonly image: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly logFile: string;
}

/** What is journaled, so another process can stop it after a crash. */
export interface RuntimeHandle {
  readonly image: string;
  readonly pid: number;
  readonly command: readonly string[];
}

export interface LocalRuntime {
  readonly name: string;
  start(request: RuntimeRequest): Promise<RuntimeHandle>;
  /** Stops it (the whole process group); true when it was running. */
  stop(handle: RuntimeHandle, graceMs?: number): Promise<boolean>;
}

// A recycled pid must not be killed: the process must still run the journaled command.
function runs(handle: RuntimeHandle): boolean {
  if (!processAlive(handle.pid)) return false;
  try {
    const argv = readFileSync(`/proc/${handle.pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    return handle.command.every((word) => argv.includes(word));
  } catch {
    return process.platform !== 'linux';
  }
}

export const nativeRuntime: LocalRuntime = {
  name: 'native',
  async start(request) {
    const [file, ...args] = request.command;
    if (file === undefined) throw new LeaseError('runtime-failed', `Cannot start image "${request.image}" natively: its takeover command is empty`);
    const log = openSync(request.logFile, 'a');
    try {
      // Its own process group, so a hand-back stops everything it started; its output goes to the log file.
      const child = spawn(file, args, { cwd: request.cwd, env: { ...process.env, ...request.env }, detached: true, stdio: ['ignore', log, log] });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () => resolve(child.pid ?? -1));
        child.once('error', (error) => reject(new LeaseError('runtime-failed', `Cannot start image "${request.image}" natively (${request.command.join(' ')}): ${error.message}`, { cause: error })));
      });
      child.unref();
      return { image: request.image, pid, command: [...request.command] };
    } finally {
      closeSync(log);
    }
  },
  async stop(handle, graceMs = 5000) {
    if (!runs(handle)) return false;
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-handle.pid, name);
      } catch {
        try {
          process.kill(handle.pid, name);
        } catch {
          // already gone
        }
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (processAlive(handle.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (processAlive(handle.pid)) signal('SIGKILL');
    return true;
  },
};

export const RUNTIMES: Readonly<Record<string, LocalRuntime>> = { native: nativeRuntime };
