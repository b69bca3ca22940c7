import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ImageFingerprint } from '../fingerprint/fingerprint-images.ts';
import type { Clock } from '../ports/clock.ts';
import type { Git } from '../ports/git.ts';
import type { Kube } from '../ports/kube.ts';
import type { JobTemplate } from './build-job.ts';
import type { Holder, ImageMap } from './ownership-records.ts';
import type { OwnershipSnapshot } from './ownership-store.ts';
import type { ImagePlan } from './plan-builds.ts';
import type { TargetProfile } from './target-profile.ts';
import type { TargetStatePaths } from './state-paths.ts';

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
  readonly template: JobTemplate;
  readonly parallel: number;
  readonly run: string;
  /** One journal-friendly line to stderr. */
  readonly log: (line: string) => void;
  readonly progress: (image: string, line: string) => void;
  readonly pollMs?: number;
}

/** Filled in by the steps, in order. */
export interface DeliveryState {
  readonly commit: string;
  /** The catalogue folder's path inside its Git repository. */
  prefix?: string;
  ownership?: OwnershipSnapshot;
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
