import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ImageFingerprint } from '../fingerprint/fingerprint-images.ts';
import type { Clock } from '../ports/clock.ts';
import type { Git } from '../ports/git.ts';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import type { JobTemplate } from './build-job.ts';
import type { Holder, ImageMap } from '../ownership/ownership-records.ts';
import type { OwnershipSnapshot } from '../ownership/ownership-store.ts';
import type { ImagePlan } from './plan-builds.ts';
import type { CleanupOptions } from '../ownership/cleanup-target.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import type { TargetStatePaths } from '../target/state-paths.ts';
import type { Receipt } from '../target/receipt.ts';

/** What every step may use; nothing in it changes during a delivery. */
export interface DeliveryContext {
  readonly profile: TargetProfile;
  /** Absolute path of the checkout (the catalogue's repository folder). */
  readonly checkout: string;
  readonly git: Git;
  readonly kube: Kube;
  readonly clock: Clock;
  readonly holder: Holder;
  readonly paths: TargetStatePaths;
  /** Read once, when the first image must build. */
  template(): Promise<JobTemplate>;
  readonly parallel: number;
  readonly run: string;
  /** One journal-friendly line to stderr. */
  readonly log: (line: string) => void;
  readonly progress: (image: string, line: string) => void;
  readonly pollMs?: number;
  /** Stops what this workstation can see of an expired lease's runtimes when the claim's clean-up removes it. */
  readonly stopLeaseRuntimes?: CleanupOptions['stopLocal'];
}

/** Filled in by the steps, in order. */
export interface DeliveryState {
  readonly commit: string;
  /** The checkout's path inside its Git repository; read when the first image must build. */
  prefix?: string;
  /** The local receipt, read early so it overlaps the claim and the push. */
  prefetch?: { readonly receipt: Promise<Receipt | undefined> };
  /**
   * The root and child Applications, read while the push runs (we hold the target, so no other delivery changes
   * the root's inputs); the root-inputs step decides on the root, the sync step's first look uses the children.
   */
  applications?: Promise<readonly (KubeObject | undefined)[]>;
  ownership?: OwnershipSnapshot;
  /** A read of the ownership ConfigMap started with the delivery; the claim's first attempt decides on it. */
  firstRead?: Promise<OwnershipSnapshot>;
  /** The root Application as the root-inputs step last saw or wrote it. */
  root?: KubeObject;
  rootPatched?: boolean;
  claimed?: boolean;
  catalogue?: Catalogue;
  fingerprints?: ImageFingerprint[];
  plan?: ImagePlan[];
  images?: ImageMap;
}

export interface StepResult {
  /** One line for the log and the journal. */
  readonly summary: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

export interface Step {
  readonly name: string;
  run(ctx: DeliveryContext, state: DeliveryState): Promise<StepResult>;
}

/** The target's ownership ConfigMap. */
export const ownershipRef = (ctx: DeliveryContext): { namespace: string; name: string } => ({
  namespace: ctx.profile.namespaces.argocd,
  name: ctx.profile.ownership,
});
