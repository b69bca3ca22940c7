import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { targetStatePaths } from '../target/state-paths.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import { LEASE_TTL_MS } from '../ownership/lease-record.ts';
import { systemClock } from '../ports/clock.ts';
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import { RUNTIMES } from './runtime/runtimes.ts';
import { telepresenceReplacement } from './replacement/telepresence-replacement.ts';
import type { LocalRuntime } from './runtime/local-runtime.ts';
import type { TakeoverContext } from './takeover-context.ts';
import { scaleToZero } from '../ownership/workload-replacement.ts';
import type { WorkloadReplacement } from '../ownership/workload-replacement.ts';

export interface TakeoverOptions {
  readonly profile: TargetProfile;
  readonly kube: Kube;
  readonly checkout: string;
  readonly clock?: Clock;
  readonly workstation?: string;
  readonly ttlMs?: number;
  readonly replacement?: WorkloadReplacement;
  readonly runtimes?: Readonly<Record<string, LocalRuntime>>;
  readonly log?: (line: string) => void;
  readonly pollMs?: number;
  readonly afterStep?: (step: string) => Promise<void> | void;
}

export async function makeTakeoverContext(options: TakeoverOptions): Promise<TakeoverContext> {
  const log = options.log ?? ((line: string) => process.stderr.write(`takeover: ${line}\n`));
  const replacement = options.replacement ?? scaleToZero(options.kube);
  return {
    profile: options.profile,
    kube: options.kube,
    clock: options.clock ?? systemClock,
    holder: { checkout: options.checkout, workstation: options.workstation ?? hostname() },
    checkout: options.checkout,
    paths: await targetStatePaths(options.checkout, options.profile.name),
    run: `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`,
    ttlMs: options.ttlMs ?? LEASE_TTL_MS,
    replacement,
    replacements: {
      'scale-to-zero': scaleToZero(options.kube),
      telepresence: telepresenceReplacement({ log }),
      [replacement.name]: replacement,
    },
    network: `pharos-takeover-${options.profile.name}`,
    ...('dockerNetwork' in replacement && typeof replacement.dockerNetwork === 'function'
      ? { dockerNetwork: replacement.dockerNetwork as (namespace: string) => Promise<string> }
      : {}),
    runtimes: options.runtimes ?? RUNTIMES,
    log,
    pollMs: options.pollMs ?? 100,
    ...(options.afterStep ? { afterStep: options.afterStep } : {}),
  };
}
