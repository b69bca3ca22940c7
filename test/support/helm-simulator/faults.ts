// Faults a test injects into the simulator through HELM_SIMULATOR_FAULTS (a JSON file): `{"kill": "upgrade"}` (or
// install, rollback, uninstall) makes the process SIGKILL itself once that action recorded its pending (or
// uninstalling) revision and applied (or deleted) its objects, as a reboot would; `{"pullDigest": "sha256:…"}` makes
// `pull` report that digest (a lying registry or proxy); `{"readDelayMs": 1500}` holds an upgrade between reading the
// history and recording its revision, the window in which two Helm processes race for the same revision.
import { readFileSync } from 'node:fs';

interface Faults {
  readonly kill?: string;
  readonly pullDigest?: string;
  readonly readDelayMs?: number;
}

function readFaults(): Faults {
  const file = process.env.HELM_SIMULATOR_FAULTS;
  if (file === undefined || file === '') return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Faults;
  } catch {
    return {};
  }
}

/** The digest `pull` reports: the pulled one, unless a fault says otherwise. */
export function reportedDigest(pulled: string): string {
  return readFaults().pullDigest ?? pulled;
}

export function checkFault(action: 'install' | 'upgrade' | 'rollback' | 'uninstall'): void {
  if (readFaults().kill === action) process.kill(process.pid, 'SIGKILL');
}

export async function readDelay(): Promise<void> {
  const ms = readFaults().readDelayMs ?? 0;
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}
