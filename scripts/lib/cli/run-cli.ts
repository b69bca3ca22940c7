import { runSafely } from 'cmd-ts';
import type { Runner } from 'cmd-ts/dist/cjs/runner.js';
import { exitOnError } from './exit-on-error.ts';

/** Handler result: the exit status, or nothing for 0. */
export type ExitStatus = number | void;

/** The one top-level handler: usage errors exit 2, toolkit errors their own status, anything else 1. */
export async function runCli(
  program: string,
  command: Runner<any, Promise<ExitStatus>>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  try {
    const result = await runSafely(command, [...argv]);
    if (result._tag === 'error') {
      const { exitCode, message, into } = result.error.config;
      (into === 'stdout' ? process.stdout : process.stderr).write(`${message}\n`);
      process.exitCode = exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = (await result.value) ?? 0;
  } catch (error) {
    exitOnError(program, error);
  }
}
