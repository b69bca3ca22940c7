// What a delivery's clean-up of an expired lease stops on this workstation: takeover's own view of that lease (this
// checkout's journal, any holder's containers by label, the Telepresence routes into its namespaces).
import type { LeaseRecord } from '../ownership/lease-record.ts';
import type { Kube } from '../ports/kube.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import { makeTakeoverContext } from './make-context.ts';
import { stopLocalFor } from './stop-local.ts';

export interface LeaseRuntimeStopperOptions {
  readonly profile: TargetProfile;
  readonly kube: Kube;
  readonly checkout: string;
  readonly log?: (line: string) => void;
}

export async function leaseRuntimeStopper(
  options: LeaseRuntimeStopperOptions,
): Promise<(record: LeaseRecord) => Promise<string[]>> {
  return stopLocalFor(await makeTakeoverContext(options));
}
