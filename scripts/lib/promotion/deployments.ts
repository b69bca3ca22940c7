/** A GitHub deployment of what a promotion wrote (spec: "Watching it"); the fields GitHub shows in the environment's history. */
export interface DeploymentRecord {
  /** The promoted commit SHA or release tag (not the requested one, when automatic promotion moved on). */
  readonly ref: string;
  readonly environment: string;
  readonly description: string;
  /** Who requested the promotion, the requested target, the channel version and the deploy-state commit. */
  readonly payload: Readonly<Record<string, string | number>>;
  readonly productionEnvironment: boolean;
}

export interface DeploymentStatus {
  readonly state: 'success' | 'failure' | 'in_progress';
  readonly description: string;
  /** The promotion run, for "View logs". */
  readonly logUrl: string | undefined;
}

/** GitHub deployments, behind a port (real: GitHub REST; tests: a recording double). */
export interface Deployments {
  /** Creates the deployment record and answers its id. */
  create(record: DeploymentRecord): Promise<number>;
  setStatus(id: number, environment: string, status: DeploymentStatus): Promise<void>;
}
