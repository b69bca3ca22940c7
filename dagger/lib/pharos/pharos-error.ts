import { ToolkitError } from '../errors/toolkit-error.ts';

export type PharosErrorCode =
  | 'inventory'
  | 'registry'
  | 'tampered'
  | 'disagree'
  | 'secrets'
  | 'unavailable'
  | 'migration'
  | 'database';

const EXIT: Record<PharosErrorCode, number> = {
  inventory: 2,
  registry: 2,
  secrets: 2,
  tampered: 3,
  disagree: 3,
  unavailable: 1,
  migration: 1,
  database: 1,
};

/**
 * The pharos namespace's administration failed: credentials or database provisioning. Exit 2 for a bad
 * inventory, registry or secrets folder, 3 when a Secret disagrees with the record (an operator decides), 1 otherwise.
 */
export class PharosError extends ToolkitError<PharosErrorCode> {
  constructor(
    code: PharosErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: EXIT[code] });
  }
}
