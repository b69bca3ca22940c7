import { isToolkitError } from '../errors/toolkit-error.ts';

/** An error a handler threw: a toolkit error exits with its own status, anything else 1. */
export function exitOnError(program: string, error: unknown): void {
  if (isToolkitError(error)) {
    process.stderr.write(`${program}: error [${error.code}]: ${error.message}\n`);
    process.exitCode = error.exitCode;
    return;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${program}: internal error: ${message}\n`);
  process.exitCode = 1;
}
