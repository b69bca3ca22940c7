import { exitOnError } from '../lib/cli/exit-on-error.ts';

/**
 * Runs a handler whose arguments were read without cmd-ts, with `runCli`'s exit rules (lib/cli/run-cli.ts): toolkit
 * errors exit with their own status, anything else 1.
 */
export async function runHandler(program: string, handler: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await handler();
  } catch (error) {
    exitOnError(program, error);
  }
}
