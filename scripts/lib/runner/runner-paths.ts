import { resolve } from 'node:path';

/** The runner's own folder: its checkout (never an operator's source), the target profiles, incoming bundles. */
export interface RunnerPaths {
  readonly root: string;
  readonly checkout: string;
  readonly targets: string;
  readonly incoming: string;
  readonly lock: string;
}

export function runnerPaths(root: string): RunnerPaths {
  const abs = resolve(root);
  return {
    root: abs,
    checkout: resolve(abs, 'checkout'),
    targets: resolve(abs, 'targets'),
    incoming: resolve(abs, 'incoming'),
    lock: resolve(abs, 'runner.lock'),
  };
}

/** The ref a bundle carries its commit under, in the sender's bundle and the runner's checkout alike. */
export const bundleRef = (commit: string): string => `refs/pharos-runner/${commit}`;
