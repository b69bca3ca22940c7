import { isToolkitError } from '../lib/errors/toolkit-error.ts';

/**
 * Runs a handler whose arguments were read without cmd-ts, with `runCli`'s exit rules (lib/cli/run-cli.ts): toolkit
 * errors exit with their own status, anything else 1.
 */
export async function runHandler(program: string, handler: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await handler();
  } catch (error) {
    if (isToolkitError(error)) {
      process.stderr.write(`${program}: error [${error.code}]: ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${program}: internal error: ${message}\n`);
    process.exitCode = 1;
  }
}
