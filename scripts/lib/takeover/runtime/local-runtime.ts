// Port: runs a taken-over image on the workstation. Runtimes: `native` (the catalogue's command) and `docker`.
import type { ImageEntry } from '../../catalogue/catalogue.ts';

export interface RuntimeRequest {
  readonly image: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly logFile: string;
  /** The catalogue entry: the Docker runtime builds it. */
  readonly entry?: ImageEntry;
  /** The port the workload serves (`takeover.port`): the Docker runtime publishes it on loopback. */
  readonly port?: number;
  /** A loopback port to reuse (a restart keeps the route's target). */
  readonly hostPort?: number;
  /** Names the cluster's Services give the workload: the Docker runtime's network aliases. */
  readonly aliases?: readonly string[];
  /** The Docker network the takeover's containers share, or `container:<name>`: Telepresence's daemon's network. */
  readonly network?: string;
  /** Labels that find the container again after a crash. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Labels on the container only (lease, holder, workloads): whoever cleans the lease finds it by them. */
  readonly containerLabels?: Readonly<Record<string, string>>;
  /**
   * Called with the handle it is about to start (`named`, before anything runs: journal it then) and once it runs
   * (`started`, before its port is read): a crash at either point leaves something recovery can find.
   */
  readonly checkpoint?: (point: 'named' | 'started', handle: RuntimeHandle) => Promise<void>;
}

/** What is journaled, so another process can stop it after a crash. */
export interface RuntimeHandle {
  readonly image: string;
  /** `native` when absent (journals written before the Docker runtime). */
  readonly runtime?: string;
  /** Native: the process group leader. */
  readonly pid?: number;
  readonly command: readonly string[];
  /** Docker: the container id (its name, when journaled before `docker run` returned an id). */
  readonly container?: string;
  /** Docker: the container's name, chosen before it runs. */
  readonly name?: string;
  /** Where the runtime listens on loopback: the replacement's local port. */
  readonly hostPort?: number;
  /** Docker: `container:<daemon>` when it shares Telepresence's daemon's network (hostPort is on that loopback). */
  readonly network?: string;
}

export interface LocalRuntime {
  readonly name: string;
  start(request: RuntimeRequest): Promise<RuntimeHandle>;
  /** Work that may fail before anything is stopped (the Docker build): a restart runs it first. */
  prepare?(request: RuntimeRequest): Promise<void>;
  /** Stops it (the whole process group, or the container); true when it was running. */
  stop(handle: RuntimeHandle, graceMs?: number): Promise<boolean>;
  /** Whether it still runs (agent removal waits until none does). */
  running(handle: RuntimeHandle): Promise<boolean>;
  /** What runs (or stopped, not removed) for a lease, found by its label: no journal needed. */
  find?(lease: string): Promise<RuntimeHandle[]>;
}

/** How a handle is named in logs and the journal. */
export function describeHandle(handle: RuntimeHandle): string {
  if (handle.container !== undefined && handle.container !== handle.name)
    return `${handle.image} (container ${handle.container.slice(0, 12)})`;
  if (handle.name !== undefined) return `${handle.image} (container ${handle.name})`;
  return `${handle.image} (pid ${handle.pid ?? '?'})`;
}

export const runtimeOf = (handle: RuntimeHandle): string => handle.runtime ?? 'native';
