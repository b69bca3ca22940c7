import { ToolkitError } from '../../errors/toolkit-error.ts';

/** Failures of a chart host: verifying or pulling the chart, its values, or a Helm command; the running release stays. */
export type ChartErrorCode =
  | 'settings'
  | 'archive'
  | 'chart-mismatch'
  | 'chart-signature'
  | 'pull-failed'
  | 'values'
  | 'profile'
  | 'helm-failed'
  | 'helm-output'
  | 'pending-release'
  | 'never-finished'
  | 'cutover'
  | 'evidence';

export class ChartError extends ToolkitError<ChartErrorCode> {}
