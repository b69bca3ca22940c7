// Faults a test injects into the simulator through HELM_SIMULATOR_FAULTS (a JSON file): `{"kill": "upgrade"}` (or
// install, rollback, uninstall) makes the process SIGKILL itself once that action recorded its pending (or
// uninstalling) revision and applied (or deleted) its objects, as a reboot would; `{"pullDigest": "sha256:…"}` makes
// `pull` report that digest (a lying registry or proxy).
import { readFileSync } from 'node:fs';

function readFaults(): { kill?: string; pullDigest?: string } {
  const file = process.env.HELM_SIMULATOR_FAULTS;
  if (file === undefined || file === '') return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { kill?: string; pullDigest?: string };
  } catch {
    return {};
  }
}

/** The digest `pull` reports: the pulled one, unless a fault says otherwise. */
export function reportedDigest(pulled: string): string {
  return readFaults().pullDigest ?? pulled;
}

export function checkFault(action: 'install' | 'upgrade' | 'rollback' | 'uninstall'): void {
  const file = process.env.HELM_SIMULATOR_FAULTS;
  if (file === undefined || file === '') return;
  let faults: { kill?: string };
  try {
    faults = JSON.parse(readFileSync(file, 'utf8')) as { kill?: string };
  } catch {
    return;
  }
  if (faults.kill === action) process.kill(process.pid, 'SIGKILL');
}
