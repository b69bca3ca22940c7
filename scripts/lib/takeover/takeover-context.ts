import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Holder, LeaseRecord } from '../ownership/lease-record.ts';
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import type { Step } from '../steps/step.ts';
import type { OwnershipSnapshot } from '../ownership/ownership-store.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import type { TargetStatePaths } from '../target/state-paths.ts';
import type { LocalRuntime, RuntimeHandle } from './runtime/local-runtime.ts';
import type { ProjectWindows } from '../ownership/project-windows.ts';
import type { Replacement, WorkloadReplacement } from '../ownership/workload-replacement.ts';

/** What every takeover step may use; nothing in it changes during a command. */
export interface TakeoverContext {
  readonly profile: TargetProfile;
  readonly kube: Kube;
  readonly clock: Clock;
  readonly holder: Holder;
  /** Absolute path of the checkout. */
  readonly checkout: string;
  readonly paths: TargetStatePaths;
  readonly run: string;
  readonly ttlMs: number;
  /** How new replacements are made (Telepresence, or the scale-to-zero fallback). */
  readonly replacement: WorkloadReplacement;
  /** Every replacement port by name: a hand-back undoes each replacement with the port that made it. */
  readonly replacements: Readonly<Record<string, WorkloadReplacement>>;
  /** The Docker network of this target's takeover containers (their Services' names are its aliases). */
  readonly network: string;
  /** Telepresence's Docker mode: connects `--docker` and names the daemon's network (`container:<daemon>`). */
  readonly dockerNetwork?: (namespace: string) => Promise<string>;
  readonly runtimes: Readonly<Record<string, LocalRuntime>>;
  readonly log: (line: string) => void;
  readonly pollMs: number;
  /** Called after each step is journaled (tests SIGKILL the process at a step boundary). */
  readonly afterStep?: (step: string) => Promise<void> | void;
}

/** Filled in as the steps run. */
export interface LeaseState {
  record: LeaseRecord;
  snapshot?: OwnershipSnapshot;
  /** The AppProjects holding our window, as last read or written. */
  projects: ProjectWindows[];
  catalogue?: Catalogue;
  /** Catalogue names taken over. */
  images: readonly string[];
  replacements: Replacement[];
  runtimes: RuntimeHandle[];
  /** `container:<daemon>` once the Docker runtimes share Telepresence's containerized daemon's network. */
  clusterNetwork?: string;
}

/** A takeover step: the one step type of steps/, over a takeover's context and its lease's state. */
export type LeaseStep = Step<TakeoverContext, LeaseState>;
