import { ToolkitError } from '../errors/toolkit-error.ts';

/** Host-side failures: configuration (exit 2), corrupt state and fetch failures (exit 1). */
export type HostErrorCode =
  | 'config'
  | 'applied-corrupt'
  | 'fetch-failed'
  | 'fetch-timeout'
  | 'fetch-too-large'
  | 'tick-running'
  | 'not-implemented';

export class HostError extends ToolkitError<HostErrorCode> {}
