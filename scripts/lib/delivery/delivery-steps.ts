import type { Step } from './delivery-context.ts';
import { build } from './steps/build.ts';
import { claim } from './steps/claim.ts';
import { compare } from './steps/compare.ts';
import { fingerprint } from './steps/fingerprint.ts';
import { push } from './steps/push.ts';
import { receipt } from './steps/receipt.ts';
import { record } from './steps/record.ts';
import { release } from './steps/release.ts';
import { rootStep } from './steps/root-inputs.ts';
import { sync } from './steps/sync.ts';

// The receipt is written with the record and the root inputs, before the wait for Argo CD: a sync that times out
// leaves a delivery that all three name (Argo CD keeps converging on it), never a receipt older than the cluster.
export const DELIVERY_STEPS: readonly Step[] = [
  claim,
  push,
  fingerprint,
  compare,
  build,
  record,
  rootStep,
  receipt,
  sync,
  release,
];
