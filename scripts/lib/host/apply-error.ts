import { ToolkitError } from '../errors/toolkit-error.ts';

/** Failures while applying a decided target; the previous release keeps running and applied.json is not touched. */
export type ApplyErrorCode =
  | 'target'
  | 'worktree-modified'
  | 'worktree'
  | 'render'
  | 'binding'
  | 'disk-space'
  | 'pull-failed'
  | 'migration-failed'
  | 'worker-unknown'
  | 'worker-stop-failed'
  | 'up-failed'
  | 'not-healthy'
  | 'tooling';

export class ApplyError extends ToolkitError<ApplyErrorCode> {}
