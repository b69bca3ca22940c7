// Child process groups this process started: each external program runs as the leader of its own group, so a deadline
// can end it and every process it started (a `helm` plugin, a backgrounded `sleep` holding its stdout) with one kill.
const groups = new Set<number>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Kills the whole group led by `pid`; a group already gone is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // no such group any more
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // Our listener alone means nobody handles the signal: the default action would end this process, and a group in its
  // own session would never hear the terminal's Ctrl-C. Pass it on, then end as if no listener were installed.
  if (process.listenerCount(signal) > 1) return;
  for (const pid of groups) killGroup(pid, signal);
  uninstall();
  process.kill(process.pid, signal);
}

function onExit(): void {
  for (const pid of groups) killGroup(pid);
}

function install(): void {
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('exit', onExit);
}

function uninstall(): void {
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('exit', onExit);
}

/** Remembers a group until `release`: while any is alive, a fatal signal is passed on to it and exit kills it. */
export function trackGroup(pid: number): () => void {
  if (groups.size === 0) install();
  groups.add(pid);
  return () => {
    if (groups.delete(pid) && groups.size === 0) uninstall();
  };
}
