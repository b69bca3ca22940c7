import { ToolkitError } from '../errors/toolkit-error.ts';

export type CatalogueErrorCode = 'unreadable' | 'yaml' | 'invalid';

/** A catalogue that cannot be trusted; exit status 2 because it fails the same way until edited. */
export class CatalogueError extends ToolkitError<CatalogueErrorCode> {
  constructor(
    code: CatalogueErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { ...options, exitCode: 2 });
  }
}
