// The native runtime: the catalogue's `takeover.command` in the checkout, in its own process group.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { LeaseError } from '../../ownership/lease-error.ts';
import { processAlive } from '../../ports/pid-lock.ts';
import type { LocalRuntime, RuntimeHandle } from './local-runtime.ts';

// A recycled pid must not be killed: the process must still run the journaled command.
function runs(handle: RuntimeHandle): boolean {
  if (handle.pid === undefined || !processAlive(handle.pid)) return false;
  try {
    const argv = readFileSync(`/proc/${handle.pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
    return handle.command.every((word) => argv.includes(word));
  } catch {
    return process.platform !== 'linux';
  }
}

export const nativeRuntime: LocalRuntime = {
  name: 'native',
  async start(request) {
    const [file, ...args] = request.command;
    if (file === undefined)
      throw new LeaseError(
        'runtime-failed',
        `Cannot start image "${request.image}" natively: its takeover command is empty`,
      );
    const log = openSync(request.logFile, 'a');
    try {
      // Its own process group, so a hand-back stops everything it started; its output goes to the log file.
      const env = {
        ...process.env,
        ...request.env,
        ...(request.port === undefined ? {} : { PORT: String(request.port) }),
      };
      const child = spawn(file, args, { cwd: request.cwd, env, detached: true, stdio: ['ignore', log, log] });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () => resolve(child.pid ?? -1));
        child.once('error', (error) =>
          reject(
            new LeaseError(
              'runtime-failed',
              `Cannot start image "${request.image}" natively (${request.command.join(' ')}): ${error.message}`,
              { cause: error },
            ),
          ),
        );
      });
      child.unref();
      return {
        image: request.image,
        runtime: 'native',
        pid,
        command: [...request.command],
        ...(request.port === undefined ? {} : { hostPort: request.port }),
      };
    } finally {
      closeSync(log);
    }
  },
  async stop(handle, graceMs = 5000) {
    if (!runs(handle)) return false;
    const pid = handle.pid!;
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-pid, name);
      } catch {
        try {
          process.kill(pid, name);
        } catch {
          // already gone
        }
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (processAlive(pid)) signal('SIGKILL');
    return true;
  },
  running: async (handle) => runs(handle),
};
